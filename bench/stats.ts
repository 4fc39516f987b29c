/** Timing and formatting helpers shared by the benchmarks: warmups, medians, ratios, markdown tables. */

/** The median of a list of numbers (the lower middle for even lengths); 0 for an empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/** The `q`-quantile (0.5: p50, 0.99: p99) by nearest rank: the smallest value with `q` of them at or below it. */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))] ?? 0;
}

/** Wall time of one call of `fn` in ms, with its result. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Writes one progress line to stderr (stdout carries only the tables). */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** A number with thousands separators and at most `digits` decimals. */
export function num(value: number, digits = 0): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A duration in ms with a precision that suits its size (ns below 1 µs, µs below 0.1 ms). */
export function ms(value: number): string {
  if (value < 0.001) return `${num(value * 1e6, 1)} ns`;
  if (value < 0.1) return `${num(value * 1000, 2)} µs`;
  return `${num(value, value < 10 ? 2 : 1)} ms`;
}

/** A ratio as `1.23x`. */
export function ratio(value: number): string {
  return `${num(value, value < 10 ? 2 : 0)}x`;
}

/** A markdown table from a header row and body rows. */
export function markdownTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

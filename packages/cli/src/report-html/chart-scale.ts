/** A linear map from a data domain [0, max] onto pixels [from, to]. */
export interface Scale {
  (value: number): number;
  max: number;
}

/** A linear scale from [0, max] onto [from, to] (to < from for a y axis that grows upwards). */
export function linearScale(max: number, from: number, to: number): Scale {
  const span = max <= 0 ? 1 : max;
  const scale = ((value: number) => round(from + ((to - from) * value) / span)) as Scale;
  scale.max = span;
  return scale;
}

/**
 * At most `count` round steps from 0 to at least `max` (steps of 1, 2 or 5 × 10ⁿ, never finer than
 * max / count, so an axis of whole request numbers never gets half steps). Each tick is computed as
 * i × step, rounded to the step's decimals, so no float drift accumulates.
 */
export function ticks(max: number, count: number): number[] {
  if (max <= 0) return [0];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  const steps = Math.ceil(max / step - 1e-9);
  return Array.from({ length: steps + 1 }, (_, i) => Number((i * step).toFixed(decimals)));
}

/** A token count for an axis or a tooltip: 950, 12.5k, 1.2M. */
export function shortNumber(n: number): string {
  if (Math.abs(n) >= 1_000_000) return `${trim(n / 1_000_000)}M`;
  if (Math.abs(n) >= 1_000) return `${trim(n / 1_000)}k`;
  return String(Math.round(n));
}

function trim(n: number): string {
  return n.toFixed(1).replace(/\.0$/, "");
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

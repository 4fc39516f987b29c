/** Units a measured number carries, longest first so `ms` wins over `s` and `MiB` over `M`. */
const UNITS = [
  "seconds",
  "second",
  "minutes",
  "tokens",
  "bytes",
  "hours",
  "secs",
  "mins",
  "req/s",
  "ops/s",
  "KiB",
  "MiB",
  "GiB",
  "sec",
  "min",
  "ms",
  "µs",
  "us",
  "ns",
  "KB",
  "kB",
  "MB",
  "GB",
  "TB",
  "%",
  "×",
  "s",
  "x",
  "h",
  "B",
];

const NUMBER = new RegExp(
  `(?<![\\w.:/#@$-]|\\d,)((?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?)(?!\\d|,\\d|\\.\\d)(?:[ \\u00a0]?(${UNITS.map(escapeUnit).join("|")})(?![\\w/]))?`,
  "gu",
);

/**
 * The measured numbers in a text, distinct, in order: numbers with a decimal part (`0.93`, `2,900.5`) or
 * a unit (`16 ms`, `50 MB`, `85%`, `3.5x`, `1200 tokens`), written canonically: the digits as
 * written, no space before the unit (`16 ms` and `16ms` are one number). Not counted: bare integers (line
 * numbers, counts, ids), versions (`1.2.3`, `v1.2`), numbers inside words, paths, times or hashes. A
 * comma groups thousands only between digits (`1,200`); a number ends at one a digit does not follow, and
 * digits right after a comma that does not group thousands (`1,5 s`) are no number.
 */
export function measuredNumbers(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(NUMBER)) {
    const [, digits = "", unit] = m;
    if (unit === undefined && !digits.includes(".")) continue;
    found.add(`${digits}${unit ?? ""}`);
  }
  return [...found];
}

function escapeUnit(unit: string): string {
  return unit.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * How many cases a fault suite runs: `ci` in the README's test command, `soak` under `pnpm soak`
 * (PALIMPSEST_SOAK=1). PALIMPSEST_FAULT_SCALE multiplies either (e.g. 0.1 while writing a suite).
 */
export function faultCount(ci: number, soak: number): number {
  const base = process.env.PALIMPSEST_SOAK === "1" ? soak : ci;
  const scale = Number(process.env.PALIMPSEST_FAULT_SCALE ?? "1");
  return Math.max(1, Math.round(base * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/** The seed of a fault suite: PALIMPSEST_FAULT_SEED when set (to replay a failure), else a fresh one. */
export function faultSeed(): number {
  const fixed = process.env.PALIMPSEST_FAULT_SEED;
  return fixed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(fixed);
}

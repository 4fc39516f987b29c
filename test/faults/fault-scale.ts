/**
 * How many cases a fault suite runs, by tier: `quick` in the README's test command (`pnpm test`, whose
 * vitest project sets PALIMPSEST_FAULT_TIER=quick), `ci` in the long suite (`pnpm test:long`, which `.ci/run`
 * runs too), `soak` under `pnpm soak` (PALIMPSEST_SOAK=1, which wins over the tier). The quick count is a
 * tenth of the CI one unless given. PALIMPSEST_FAULT_SCALE multiplies any tier (e.g. 0.1 while writing a suite).
 */
export function faultCount(ci: number, soak: number, quick: number = Math.ceil(ci / 10)): number {
  const base = faultTier() === "soak" ? soak : faultTier() === "quick" ? quick : ci;
  const scale = Number(process.env.PALIMPSEST_FAULT_SCALE ?? "1");
  return Math.max(1, Math.round(base * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/** The tier this run's fault suites take (see faultCount). */
export function faultTier(): "quick" | "ci" | "soak" {
  if (process.env.PALIMPSEST_SOAK === "1") return "soak";
  return process.env.PALIMPSEST_FAULT_TIER === "quick" ? "quick" : "ci";
}

/** The seed of a fault suite: PALIMPSEST_FAULT_SEED when set (to replay a failure), else a fresh one. */
export function faultSeed(): number {
  const fixed = process.env.PALIMPSEST_FAULT_SEED;
  return fixed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(fixed);
}

/** The vitest project that runs this tier (`--project` of a replay command): `main` for quick, else `long`. */
export function faultProject(): "main" | "long" {
  return faultTier() === "quick" ? "main" : "long";
}

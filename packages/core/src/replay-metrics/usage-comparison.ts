import type { CacheEstimate } from "../cache-model/index.ts";
import type { Usage } from "../events/index.ts";

/** Per-request prompt figures as providers bill them: read from cache, written to cache, plain input (neither). */
export interface UsageFigures {
  cacheRead: number;
  cacheWrite: number;
  input: number;
  /** USD for the request (prompt and output), when priced. */
  cost?: number;
}

/** One field compared over the turns: totals, mean absolute error per turn, and estimated/real (null if real is 0). */
export interface FieldComparison {
  estimatedTotal: number;
  realTotal: number;
  meanAbsoluteError: number;
  ratio: number | null;
}

/** How close the cache model came to the provider's usage over the compared turns. */
export interface UsageComparison {
  turns: number;
  cacheRead: FieldComparison;
  cacheWrite: FieldComparison;
  input: FieldComparison;
  /** Estimated against real USD over the same turns (output included); null unless every turn was priced. */
  cost: FieldComparison | null;
}

/** An estimate in the provider's billing shape (plain input excludes the tokens written to cache). */
export function estimateFigures(estimate: CacheEstimate): UsageFigures {
  return {
    cacheRead: estimate.cachedTokens,
    cacheWrite: estimate.cacheWriteTokens,
    input: estimate.uncachedTokens - estimate.cacheWriteTokens,
    cost: estimate.cost,
  };
}

/** A turn's recorded usage in billing shape (its prompt count includes reads and writes); undefined without one. */
export function usageFigures(usage: Usage): UsageFigures | undefined {
  if (usage.promptTokens === undefined) return undefined;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return { cacheRead, cacheWrite, input: usage.promptTokens - cacheRead - cacheWrite };
}

/**
 * Compares estimated with real figures turn by turn, over the first `turns` pairs (pass the index of the
 * real compaction to stop before it; defaults to every pair both arrays have).
 */
export function compareWithUsage(
  estimated: readonly UsageFigures[],
  real: readonly UsageFigures[],
  turns: number = Math.min(estimated.length, real.length),
): UsageComparison {
  const count = Math.max(0, Math.min(turns, estimated.length, real.length));
  const pairs = estimated.slice(0, count).map((e, i) => [e, real[i] ?? e] as const);
  const field = (key: keyof UsageFigures): FieldComparison => {
    const estimatedTotal = pairs.reduce((s, [e]) => s + (e[key] ?? 0), 0);
    const realTotal = pairs.reduce((s, [, r]) => s + (r[key] ?? 0), 0);
    const absolute = pairs.reduce((s, [e, r]) => s + Math.abs((e[key] ?? 0) - (r[key] ?? 0)), 0);
    return {
      estimatedTotal,
      realTotal,
      meanAbsoluteError: count === 0 ? 0 : absolute / count,
      ratio: realTotal === 0 ? null : estimatedTotal / realTotal,
    };
  };
  const priced = count > 0 && pairs.every(([e, r]) => e.cost !== undefined && r.cost !== undefined);
  return {
    turns: count,
    cacheRead: field("cacheRead"),
    cacheWrite: field("cacheWrite"),
    input: field("input"),
    cost: priced ? field("cost") : null,
  };
}

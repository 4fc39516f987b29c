import type { CacheRules } from "./cache-rules.ts";

/**
 * How many of `matchedTokens` leading tokens the provider can serve from (or store in) its cache:
 * none below the minimum, then the minimum plus whole granularity steps.
 */
export function cacheableTokens(matchedTokens: number, rules: CacheRules): number {
  if (rules.kind === "none" || matchedTokens < rules.minCacheableTokens || matchedTokens <= 0) return 0;
  const step = Math.max(1, rules.granularityTokens);
  const min = rules.minCacheableTokens;
  return min + Math.floor((matchedTokens - min) / step) * step;
}

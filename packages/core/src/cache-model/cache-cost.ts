import type { CachePrices } from "./cache-rules.ts";

/** Token counts that are billed differently; `cacheWriteTokens` is the part of `uncachedTokens` written to cache. */
export interface CacheTokenCounts {
  cachedTokens: number;
  uncachedTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
}

/** USD for the counts: plain input, cache reads, cache writes and output, each at its price per million tokens. */
export function cacheCost(counts: CacheTokenCounts, prices: CachePrices): number {
  const plainInput = counts.uncachedTokens - counts.cacheWriteTokens;
  return (
    (plainInput * prices.input +
      counts.cachedTokens * prices.cachedRead +
      counts.cacheWriteTokens * prices.cacheWrite +
      counts.outputTokens * prices.output) /
    1_000_000
  );
}

import type { CacheTokenCounts } from "./cache-cost.ts";

/**
 * What the cache model estimates for one request. `cachedTokens + uncachedTokens = promptTokens`;
 * `cacheWriteTokens` is the share of the uncached tokens billed at the cache-write price.
 */
export interface CacheEstimate extends CacheTokenCounts {
  promptTokens: number;
  /** The prompt changed before the end of the prefix the cache held, so that prefix is lost from the change on. */
  cacheBreak: boolean;
  /** The cache entry outlived its TTL before this request (known times only). */
  expired: boolean;
  /** First message index that differs from the previous request; null when the prompt only grew (or is the first). */
  earliestChangedIndex: number | null;
  /** USD for this request at the rules' prices. */
  cost: number;
}

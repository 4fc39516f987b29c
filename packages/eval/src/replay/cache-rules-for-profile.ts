import type { CacheRules, ProviderProfile } from "@palimpsest/core";

/**
 * The cache model's rules for a provider profile: its cache behaviour (explicit breakpoints, automatic
 * prefixes or none, TTL, minimum prefix, granularity) priced at its list prices.
 */
export function cacheRulesForProfile(profile: ProviderProfile): CacheRules {
  const { kind, ttlSeconds, minCacheableTokens, granularityTokens } = profile.cache;
  const { input, cachedRead, cacheWrite, output } = profile.prices;
  return { kind, ttlSeconds, minCacheableTokens, granularityTokens, prices: { input, cachedRead, cacheWrite, output } };
}

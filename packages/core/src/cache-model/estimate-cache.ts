import type { CacheEstimate } from "./cache-estimate.ts";
import type { CacheRules } from "./cache-rules.ts";
import type { ProviderRequest } from "./provider-request.ts";
import { initialCacheState, stepCache } from "./step-cache.ts";

/** The cache estimate of every request of a session, in order (a fold of `stepCache`). */
export function estimateCache(requests: readonly ProviderRequest[], rules: CacheRules): CacheEstimate[] {
  let state = initialCacheState;
  return requests.map((request) => {
    const step = stepCache(state, request, rules);
    state = step.state;
    return step.estimate;
  });
}

import {
  type CacheEstimate,
  type CacheRules,
  initialCacheState,
  type ProviderRequest,
  stepCache,
} from "@palimpsest/core";

/** The cache estimate of every request of a session, in order: a fold of `stepCache`, as replay runs it. */
export function estimateCache(requests: readonly ProviderRequest[], rules: CacheRules): CacheEstimate[] {
  let state = initialCacheState;
  return requests.map((request) => {
    const step = stepCache(state, request, rules);
    state = step.state;
    return step.estimate;
  });
}

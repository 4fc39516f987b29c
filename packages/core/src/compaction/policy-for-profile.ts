import type { CompactionPolicy } from "./policy-types.ts";
import type { ProviderProfile } from "./provider-profile.ts";
import { type PruneFirstOptions, pruneFirstPolicy } from "./prune-first-policy.ts";
import { summaryPolicy } from "./summary-policy.ts";

/** The policy a profile prefers: prune-first where the prompt cache makes mutations costly, else the summary baseline. */
export function policyForProfile(profile: ProviderProfile, options: PruneFirstOptions): CompactionPolicy {
  return profile.preferPrune ? pruneFirstPolicy(options) : summaryPolicy(options);
}

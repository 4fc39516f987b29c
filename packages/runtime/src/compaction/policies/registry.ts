import { type ProviderProfile, ValidationError } from "@palimpsest/core";
import { costOptimalDefinition } from "./cost-optimal.ts";
import type { PolicyDefinition } from "./policy-definition.ts";
import { pruneFirstDefinition } from "./prune-first.ts";
import { summaryDefinition } from "./summary.ts";

/**
 * Every batch compaction policy, in the order the CLI and replays list them. A policy whose plans are of
 * the existing kinds (summary, prune, none) is one file here (its definition: maker, default, micro
 * schedule) and one line in this list; nothing else names a policy.
 */
export const POLICIES = [
  summaryDefinition,
  pruneFirstDefinition,
  costOptimalDefinition,
] as const satisfies readonly PolicyDefinition[];

/** The batch compaction policies a session can run. */
export type PolicyName = (typeof POLICIES)[number]["name"];

/** The policies' names, in POLICIES order. */
export const POLICY_NAMES: readonly PolicyName[] = POLICIES.map((p) => p.name);

/** The policy named `name`; ValidationError listing the names for any other. */
export function policyNamed(name: string): PolicyDefinition {
  const policy = POLICIES.find((p) => p.name === name);
  if (policy === undefined) {
    throw new ValidationError(`unknown policy ${name}`, [`policy: one of ${POLICY_NAMES.join(", ")}`]);
  }
  return policy;
}

/** The policy a profile runs by default: the first that prefers it, else the summary baseline. */
export function defaultPolicyName(profile: ProviderProfile): PolicyName {
  return POLICIES.find((p) => "preferred" in p && p.preferred(profile))?.name ?? summaryDefinition.name;
}

/** The definition a session's settings name: their own definition, else the named policy, else the profile's default. */
export function policyFor(
  settings: { policy?: PolicyName | PolicyDefinition },
  profile: ProviderProfile,
): PolicyDefinition {
  const { policy } = settings;
  return typeof policy === "object" ? policy : policyNamed(policy ?? defaultPolicyName(profile));
}

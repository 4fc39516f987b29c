import type { AntiThrashConfig, CachePrices, CompactionPolicy, CountTokens, ProviderProfile } from "@palimpsest/core";

/** What a policy is built from: the session's anti-thrash settings, token counter and summarizer prices. */
export interface CreatePolicyOptions {
  antiThrash?: AntiThrashConfig;
  countTokens: CountTokens;
  /** What the summarizer's model costs, for policies that weigh it (default: the profile's prices). */
  summarizerPrices?: CachePrices;
}

/** A batch compaction policy as the store, the CLI and replays know it: its name, its help line, its maker. */
export interface PolicyDefinition {
  readonly name: string;
  /** One line for the CLI's help. */
  readonly summary: string;
  /** True when a profile prefers this policy by default (the first definition that says so wins). */
  preferred?(profile: ProviderProfile): boolean;
  create(options: CreatePolicyOptions): CompactionPolicy;
}

import type { AntiThrashConfig, CachePrices, CompactionPolicy, CountTokens, ProviderProfile } from "@palimpsest/core";
import type { MicroSchedule } from "../micro-schedule.ts";

/** What a policy is built from: the session's anti-thrash settings, token counter, summarizer (prices, how it reads) and fact price. */
export interface CreatePolicyOptions {
  antiThrash?: AntiThrashConfig;
  countTokens: CountTokens;
  /** What the summarizer's model costs, for policies that weigh it (default: the profile's prices). */
  summarizerPrices?: CachePrices;
  /** What a fact a summary drops is worth, for policies that trade recall for cost (CompactionSettings.lostFactUsd). */
  lostFactUsd?: number;
  /** The summarizer reads spans inside the conversation, from the prompt cache (Summarizer.readsConversation). */
  summarizerReadsConversation?: boolean;
}

/**
 * A batch compaction policy as the runtime, the CLI and replays know it: its name, its help line, when a
 * profile prefers it, its maker, and how micro passes run beside it. Everything that runs a policy (the
 * runtime's after-turn step, replay, the CLI) reads these fields and nothing else about it.
 */
export interface PolicyDefinition {
  readonly name: string;
  /** One line for the CLI's help. */
  readonly summary: string;
  /** True when a profile prefers this policy by default (the first definition that says so wins). */
  preferred?(profile: ProviderProfile): boolean;
  create(options: CreatePolicyOptions): CompactionPolicy;
  /** How micro passes run after a turn the batch policy did not compact (default: onePassSchedule). */
  readonly microSchedule?: MicroSchedule;
}

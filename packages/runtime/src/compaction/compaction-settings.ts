import {
  type AntiThrashConfig,
  type CachePrices,
  type CompactionPolicy,
  type CountTokens,
  definedFields,
  type MicroSettings,
  OfflineSummarizer,
  type ProviderProfile,
  type SessionState,
  type Summarizer,
} from "@palimpsest/core";
import { type CompactionBudget, resolveBudget } from "./compaction-budget.ts";
import type { PolicyDefinition } from "./policies/policy-definition.ts";
import { type PolicyName, policyFor } from "./policies/registry.ts";

export type { PolicyName } from "./policies/registry.ts";

/** How a runtime compacts: every field optional, defaults from the session and its profile. */
export interface CompactionSettings {
  /**
   * A registered policy's name, or a definition of one's own (registered nowhere); default: the profile's
   * preference (prune-first where the prompt cache makes mutations costly).
   */
  policy?: PolicyName | PolicyDefinition;
  /**
   * A profile, or the name of a built-in one; default: the session's profile, else the one its model
   * implies (`claude-*` → anthropic, `gpt-*`, `o1`… → openai), else its transcript format's, else anthropic.
   */
  profile?: ProviderProfile | string;
  /** Default: the session's context window, else 200,000. */
  contextWindow?: number;
  /**
   * Tokens reserved for the answer. Default: the profile's, but at most a quarter of the window (a
   * 64K-output default on a 64K window would otherwise leave no room and a threshold of 0).
   */
  maxOutputTokens?: number;
  /** What the summarizer's model costs, for the policies that weigh it (default: the profile's prices). */
  summarizerPrices?: CachePrices;
  /** Default: the deterministic offline summarizer (no network, no key). */
  summarizer?: Summarizer;
  /** How long a summary may take before it counts as a timeout (default 120 s). */
  summaryTimeoutMs?: number;
  antiThrash?: AntiThrashConfig;
  /** Check the session's policy after every completed turn (default false). */
  auto?: boolean;
  /** Trim tool outputs over the profile's `trimTokens` as they are appended (default false). */
  trimOnAppend?: boolean;
  /**
   * Per-turn micro-compaction (off unless given; `{}` turns it on with its defaults: every turn, defrag
   * over 2,000 tokens, 3 attempts on a failing exchange). A session can opt out with
   * `settings: { microCompact: false }` at its start.
   */
  micro?: Partial<MicroSettings>;
}

/** Settings with every default filled in for one session. */
export interface ResolvedCompaction extends CompactionBudget {
  policy: CompactionPolicy;
  summarizer: Summarizer;
  summaryTimeoutMs: number;
}

/** Fills in the defaults of `settings` for a session, with its token counter for the stubs a prune writes. */
export function resolveCompaction(
  settings: CompactionSettings,
  state: Readonly<SessionState>,
  countTokens: CountTokens,
): ResolvedCompaction {
  const budget = resolveBudget(settings, state);
  const weighed = definedFields({ antiThrash: settings.antiThrash, summarizerPrices: settings.summarizerPrices });
  return {
    policy: policyFor(settings, budget.profile).create({ ...weighed, countTokens }),
    ...budget,
    summarizer: settings.summarizer ?? new OfflineSummarizer(),
    summaryTimeoutMs: settings.summaryTimeoutMs ?? 120_000,
  };
}

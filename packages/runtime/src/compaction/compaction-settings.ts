import {
  type AntiThrashSettings,
  type CachePrices,
  type CompactionPolicy,
  type CountTokens,
  checkLostFactUsd,
  definedFields,
  type MicroSettings,
  OfflineSummarizer,
  type OptionShape,
  type ProviderProfile,
  resolveAntiThrash,
  type SessionState,
  type Summarizer,
} from "@palimpsest/core";
import { type CompactionBudget, resolveBudget } from "./compaction-budget.ts";
import type { PolicyDefinition } from "./policies/policy-definition.ts";
import { POLICY_NAMES, type PolicyName, policyFor } from "./policies/registry.ts";
import { checkRecallTool, namedOrObject, SETTING_VALUES } from "./setting-values.ts";

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
  /**
   * cost-optimal only: what one fact a summary drops (a path, command, error name or measured number,
   * docs/fidelity.md; requests are never dropped) is worth to you in USD; a plan that drops facts is taken when what it saves
   * pays for them. Default: unset, no trade (docs/compaction.md, "Recall against cost").
   */
  lostFactUsd?: number;
  /** Default: the deterministic offline summarizer (no network, no key). */
  summarizer?: Summarizer;
  /** How long a summary may take before it counts as a timeout (default 120 s). */
  summaryTimeoutMs?: number;
  /**
   * When to stop compacting for a while: after ineffective compactions in a row, and after failed
   * summaries (cooldowns by failure class). Any of its fields; the others DEFAULT_ANTI_THRASH's.
   */
  antiThrash?: AntiThrashSettings;
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
  /**
   * The name of the recall tool the agent has (docs/recall.md): `recall` for recallTools and the AI SDK's
   * and OpenAI Agents' tools, `mcp__palimpsest__recall` under Claude Code. Each summary then ends with one
   * line saying that what it replaced is one call of that tool away. Default: none (no such line).
   */
  recallTool?: string;
}

/**
 * Every key of CompactionSettings with its value's schema (checkOptions, optionsSchema): a policy by a
 * name it has (a misspelt one would fail every compaction check after a turn, on stderr only), or one of
 * your own; the other keys as SETTING_VALUES has them.
 */
export const COMPACTION_SETTINGS_SHAPE: OptionShape<CompactionSettings> = {
  policy: namedOrObject(() => POLICY_NAMES, "PolicyDefinition"),
  ...SETTING_VALUES,
};

/** Settings with every default filled in for one session. */
export interface ResolvedCompaction extends CompactionBudget {
  policy: CompactionPolicy;
  summarizer: Summarizer;
  summaryTimeoutMs: number;
  /** The agent's recall tool, which each summary names (CompactionSettings.recallTool). */
  recallTool: string | undefined;
}

/** Fills in the defaults of `settings` for a session, with its token counter for the stubs a prune writes. */
export function resolveCompaction(
  settings: CompactionSettings,
  state: Readonly<SessionState>,
  countTokens: CountTokens,
): ResolvedCompaction {
  checkRecallTool(settings.recallTool, "recallTool");
  checkLostFactUsd(settings.lostFactUsd, "lostFactUsd");
  const budget = resolveBudget(settings, state);
  const { antiThrash, summarizerPrices, lostFactUsd } = settings;
  const summarizer: Summarizer = settings.summarizer ?? new OfflineSummarizer();
  const summarizerReadsConversation = summarizer.readsConversation === true ? true : undefined;
  const weighed = definedFields({
    antiThrash: antiThrash === undefined ? undefined : resolveAntiThrash(antiThrash),
    summarizerPrices,
    lostFactUsd,
    summarizerReadsConversation,
  });
  return {
    policy: policyFor(settings, budget.profile).create({ ...weighed, countTokens }),
    ...budget,
    summarizer,
    summaryTimeoutMs: settings.summaryTimeoutMs ?? 120_000,
    recallTool: settings.recallTool,
  };
}

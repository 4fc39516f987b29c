import type { CachePrices, CacheRules } from "../cache-model/cache-rules.ts";
import { ValidationError } from "../errors.ts";

/** The compaction trigger: `max(floor(ratio × (context − output)), floorTokens)`, capped at `floorCapRatio` of the window when the floor binds. */
export interface ThresholdRule {
  ratio: number;
  floorTokens: number;
  floorCapRatio: number;
}

/** The protected tail: `max(minTokens, min(maxTokens, ratio × context))`, never more than `capRatio × context`. */
export interface TailRule {
  minTokens: number;
  maxTokens: number;
  ratio: number;
  capRatio: number;
}

/** How far below the threshold a prune must land to be accepted: `max(pruneMinimumTokens, ratio × threshold)`. */
export interface RunwayRule {
  pruneMinimumTokens: number;
  ratio: number;
}

/**
 * How the provider caches prompt prefixes (the cache model's rules without prices): a compaction's earliest
 * change costs by it. `ttlSeconds` is the default entry lifetime, `ttlChoices` the lifetimes the provider
 * offers by name (what `replay --cache-ttl` accepts), and `fixedPrefixTokens` the system prompt and tool
 * schemas every request carries before the transcript, when the transcript's usage does not tell.
 */
export interface PromptCacheRule extends Omit<CacheRules, "prices"> {
  ttlChoices?: Readonly<Record<string, number>>;
  fixedPrefixTokens?: number;
}

/** The summary's token budget: `ratio` of the summarized span, clamped to [minTokens, maxTokens]. */
export interface SummaryBudgetRule {
  ratio: number;
  minTokens: number;
  maxTokens: number;
}

/** Compaction settings for one provider family: when to compact, what to protect, and what tokens cost. */
export interface ProviderProfile {
  name: string;
  threshold: ThresholdRule;
  tail: TailRule;
  runway: RunwayRule;
  /** Try pruning old tool outputs before summarizing (cheaper where rewriting the prefix costs cache). */
  preferPrune: boolean;
  cache: PromptCacheRule;
  /** Tokens reserved for the answer when the session does not say. */
  defaultMaxOutputTokens: number;
  /** Tools whose outputs are never pruned. */
  protectedTools: readonly string[];
  /** Tool outputs of at most this many tokens are left alone by a prune (a stub would save little). */
  pruneMinOutputTokens: number;
  /** Tool outputs above this many tokens are trimmed as they are appended. */
  trimTokens: number;
  summary: SummaryBudgetRule;
  /** List prices in US dollars per million tokens, for the cost model. */
  prices: CachePrices;
}

/** Hermes' trigger: half the usable window, floored at 64K, at most 85% of the window where that floor binds. */
export const DEFAULT_THRESHOLD_RULE: ThresholdRule = { ratio: 0.5, floorTokens: 64_000, floorCapRatio: 0.85 };

/** Hermes' tail: 2.5% of the window between 10K and 25K tokens, never over 20% of it. */
export const DEFAULT_TAIL_RULE: TailRule = { minTokens: 10_000, maxTokens: 25_000, ratio: 0.025, capRatio: 0.2 };

/** OpenCode prunes only when at least 20K tokens are prunable; 15% of the threshold is the design's ratio. */
export const DEFAULT_RUNWAY_RULE: RunwayRule = { pruneMinimumTokens: 20_000, ratio: 0.15 };

/**
 * The runway of the cached profiles, tuned on the real Claude Code replays (commit 5d2b2cb; the figures with
 * these defaults: BENCHMARKS.md, "Prune-first"): with
 * 0.15 a prune at a 200K window only had to land 20K under a 75K threshold, successive prunes bought
 * less and less room, and prune-first cost more than summary on 3 of 4 sessions; 0.45 asks for 34K
 * of room there and left 64K windows unchanged (the 20K minimum binds).
 */
const CACHED_RUNWAY_RULE: RunwayRule = { pruneMinimumTokens: 20_000, ratio: 0.45 };

/** Tools whose outputs the agent re-reads as state (files, memory, answers, skills, todos): never pruned. */
const DEFAULT_PROTECTED_TOOLS: readonly string[] = [
  "read_file",
  "memory",
  "clarify",
  "skill_view",
  "todo",
  // The same tools under Claude Code's names: pruning its file reads only makes the agent read again.
  "Read",
  "TodoWrite",
  "AskUserQuestion",
  "Skill",
];

/**
 * 7.5% of the span, between 600 and 8K tokens (Hermes caps its fallback summary near 8,000 characters).
 * Issue #15 asks for summaries of at most 8% of what they remove; 7.5% leaves room for the summary's
 * note. On the real replays the offline summary's sections fit in it (requests verbatim, files, failed
 * commands first) by dropping the oldest successful commands; the floor keeps a tiny span's requests.
 */
const DEFAULT_SUMMARY_BUDGET: SummaryBudgetRule = { ratio: 0.075, minTokens: 600, maxTokens: 8_000 };

/** What every built-in profile shares: Hermes' threshold and tail, the protected tools, the prune and summary sizes. */
const COMMON = {
  threshold: DEFAULT_THRESHOLD_RULE,
  tail: DEFAULT_TAIL_RULE,
  protectedTools: DEFAULT_PROTECTED_TOOLS,
  pruneMinOutputTokens: 400,
  summary: DEFAULT_SUMMARY_BUDGET,
} satisfies Partial<ProviderProfile>;

/**
 * Anthropic: explicit `cache_control` breakpoints (at most four; a read only at a prefix an earlier request
 * wrote at a breakpoint, looked for about 20 blocks back), a 5-minute TTL refreshed on each hit or a 1-hour
 * one (writes at 2× input; Claude Code writes those), a 1,024-token minimum prefix (4,096 on Opus 4.5+ and
 * Haiku 4.5: the model's own minimum wins where the replay knows the model), cache writes at 1.25× input
 * and reads at 0.1×. Rewriting the prefix is expensive, so
 * prefer pruning (which changes only old tool outputs) and mutate rarely. Prices: Claude Sonnet 4 list
 * prices as of mid-2025 ($3 input, $0.30 cache read, $3.75 5-minute cache write, $15 output); check
 * before relying on them. 64K output is Sonnet 4's maximum.
 */
export const ANTHROPIC_PROFILE: ProviderProfile = {
  ...COMMON,
  name: "anthropic",
  runway: CACHED_RUNWAY_RULE,
  preferPrune: true,
  cache: {
    kind: "explicit-breakpoint",
    ttlSeconds: 300,
    ttlChoices: { "5m": 300, "1h": 3_600 },
    minCacheableTokens: 1_024,
    granularityTokens: 1,
    lookbackBlocks: 20,
    maxBreakpoints: 4,
  },
  defaultMaxOutputTokens: 64_000,
  trimTokens: 10_000,
  prices: { input: 3, cachedRead: 0.3, cacheWrite: 3.75, output: 15 },
};

/**
 * OpenAI: automatic prefix caching for prompts of 1,024 tokens or more, matched in 128-token steps, no
 * write surcharge (cache writes cost plain input); in-memory retention keeps an idle entry 5–10 minutes
 * (modelled as 10), extended retention 24 hours. A prune still breaks
 * the cache from its first stub on, so prune first here too, but nothing is lost by writing. Prices:
 * GPT-4.1 list prices as of mid-2025 ($2 input, $0.50 cached input, $8 output); 32,768 is its maximum
 * output. Check before relying on them.
 */
export const OPENAI_PROFILE: ProviderProfile = {
  ...COMMON,
  name: "openai",
  runway: CACHED_RUNWAY_RULE,
  preferPrune: true,
  cache: {
    kind: "automatic-prefix",
    ttlSeconds: 600,
    ttlChoices: { "in-memory": 600, "24h": 86_400 },
    minCacheableTokens: 1_024,
    granularityTokens: 128,
  },
  defaultMaxOutputTokens: 32_768,
  trimTokens: 10_000,
  prices: { input: 2, cachedRead: 0.5, cacheWrite: 2, output: 8 },
};

/**
 * Local models: no prompt cache to protect and no per-token price, so a summary (one mutation that
 * reclaims the most) is fine and pruning first buys nothing. Windows are small, so trim earlier (4K).
 */
export const LOCAL_PROFILE: ProviderProfile = {
  ...COMMON,
  name: "local",
  runway: DEFAULT_RUNWAY_RULE,
  preferPrune: false,
  cache: { kind: "none", ttlSeconds: 0, minCacheableTokens: 0, granularityTokens: 1 },
  defaultMaxOutputTokens: 4_096,
  trimTokens: 4_000,
  prices: { input: 0, cachedRead: 0, cacheWrite: 0, output: 0 },
};

/** The built-in profiles by name, as a session's `profile` field names them. */
export const PROVIDER_PROFILES: Readonly<Record<string, ProviderProfile>> = {
  anthropic: ANTHROPIC_PROFILE,
  openai: OPENAI_PROFILE,
  local: LOCAL_PROFILE,
};

/** Overrides for a custom profile: any top-level field, and any part of a nested rule. */
export type ProfileOverrides = {
  [K in keyof ProviderProfile]?: ProviderProfile[K] extends readonly unknown[] | string | number | boolean
    ? ProviderProfile[K]
    : Partial<ProviderProfile[K]>;
};

/**
 * A custom profile: `base` (a profile, or a built-in profile's name; default OpenAI's) with `overrides`
 * merged in, rule by rule; named "custom" unless given. An unknown base name is VALIDATION.
 */
export function customProfile(
  overrides: ProfileOverrides,
  baseProfile: ProviderProfile | string = OPENAI_PROFILE,
): ProviderProfile {
  const base = typeof baseProfile === "string" ? PROVIDER_PROFILES[baseProfile] : baseProfile;
  if (base === undefined)
    throw new ValidationError(`unknown profile ${baseProfile}`, [
      `base: one of ${Object.keys(PROVIDER_PROFILES).join(", ")}`,
    ]);
  return {
    ...base,
    name: overrides.name ?? "custom",
    threshold: { ...base.threshold, ...overrides.threshold },
    tail: { ...base.tail, ...overrides.tail },
    runway: { ...base.runway, ...overrides.runway },
    preferPrune: overrides.preferPrune ?? base.preferPrune,
    cache: { ...base.cache, ...overrides.cache },
    defaultMaxOutputTokens: overrides.defaultMaxOutputTokens ?? base.defaultMaxOutputTokens,
    protectedTools: overrides.protectedTools ?? base.protectedTools,
    pruneMinOutputTokens: overrides.pruneMinOutputTokens ?? base.pruneMinOutputTokens,
    trimTokens: overrides.trimTokens ?? base.trimTokens,
    summary: { ...base.summary, ...overrides.summary },
    prices: { ...base.prices, ...overrides.prices },
  };
}

import type { SummarizerFailure } from "../errors.ts";

/** One committed compaction, as the anti-thrash check needs it (`at` in epoch milliseconds). */
export interface BackoffCompaction {
  tokensBefore: number;
  tokensAfter: number;
  at: number;
}

/** One failed summary: its reason class, when, what the provider asked for, and the config it ran under. */
export interface FailureRecord {
  reason: SummarizerFailure;
  at: number;
  retryAfterMs?: number;
  /** Identifies the summarizer configuration (model, endpoint, key id; never the key): auth failures hold until it changes. */
  configKey?: string;
}

/** A session's recent compaction history, oldest first, with the clock and the current summarizer config. */
export interface CompactionHistory {
  compactions: readonly BackoffCompaction[];
  failures: readonly FailureRecord[];
  now: number;
  configKey?: string;
}

/** What the anti-thrash check reads: the history, the live tokens now, and the threshold they are measured against. */
export interface BackoffInput extends CompactionHistory {
  liveTokens: number;
  threshold: number;
}

/** Anti-thrash settings: what counts as ineffective, how long to wait after it, and cooldowns by failure class. */
export interface AntiThrashConfig {
  /** A compaction reclaiming less than this share of the threshold is ineffective. */
  ineffectiveRatio: number;
  /** Ineffective compactions in a row that trip the breaker. */
  strikes: number;
  /** After tripping, wait until the view has grown by this share of the threshold past the last compaction. */
  regrowthRatio: number;
  /** Cooldown after consecutive timeouts: the n-th timeout in a row waits the n-th entry (the last repeats). */
  timeoutCooldownsMs: readonly number[];
  /** Cooldown after the other retryable failures (rate-limited only when the provider gave no retry-after). */
  cooldownMs: Record<Exclude<SummarizerFailure, "auth" | "timeout">, number>;
}

/**
 * Hermes' numbers: two ineffective compactions (under 10% reclaimed) trip the breaker; timeouts wait
 * 60/300/900 s; other failures 30–60 s, a refusal longer since the same input is likely refused again.
 */
export const DEFAULT_ANTI_THRASH: AntiThrashConfig = {
  ineffectiveRatio: 0.1,
  strikes: 2,
  regrowthRatio: 0.25,
  timeoutCooldownsMs: [60_000, 300_000, 900_000],
  cooldownMs: {
    "rate-limited": 60_000,
    empty: 60_000,
    truncated: 60_000,
    malformed: 60_000,
    refused: 300_000,
    other: 30_000,
  },
};

/** The verdict: nothing blocked, summaries blocked (a prune needs no summarizer), or every compaction blocked. */
export type Backoff =
  | { blocks: "nothing" }
  | { blocks: "summary" | "all"; reason: string; retryAt?: number; resumeAtTokens?: number };

/**
 * Decides whether to back off. Ineffective compactions in a row block everything until the view has
 * regrown (no livelock: growth always ends it). The newest summary failure since the last compaction
 * blocks summaries for its class's cooldown; auth blocks until the summarizer config changes.
 */
export function assessBackoff(input: BackoffInput, config: AntiThrashConfig = DEFAULT_ANTI_THRASH): Backoff {
  return thrashBackoff(input, config) ?? failureBackoff(input, config) ?? { blocks: "nothing" };
}

function thrashBackoff(input: BackoffInput, config: AntiThrashConfig): Backoff | undefined {
  const recent = input.compactions.slice(-config.strikes);
  const floor = config.ineffectiveRatio * input.threshold;
  const last = recent.at(-1);
  if (last === undefined || recent.length < config.strikes) return undefined;
  if (recent.some((c) => c.tokensBefore - c.tokensAfter >= floor)) return undefined;
  const resumeAtTokens = last.tokensAfter + Math.ceil(config.regrowthRatio * input.threshold);
  if (input.liveTokens >= resumeAtTokens) return undefined;
  return {
    blocks: "all",
    reason: `last ${recent.length} compactions each reclaimed under ${Math.round(floor)} tokens; waiting for ${resumeAtTokens} live tokens`,
    resumeAtTokens,
  };
}

function failureBackoff(input: BackoffInput, config: AntiThrashConfig): Backoff | undefined {
  const since = input.compactions.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
  const failures = input.failures.filter((f) => f.at >= since);
  const last = failures.at(-1);
  if (last === undefined) return undefined;
  if (last.reason === "auth") {
    if (last.configKey !== input.configKey) return undefined;
    return { blocks: "summary", reason: "summarizer authentication failed; waiting for its configuration to change" };
  }
  const retryAt = last.at + cooldownOf(last, failures, config);
  if (input.now >= retryAt) return undefined;
  return { blocks: "summary", reason: `summary failed (${last.reason}); cooling down until ${retryAt}`, retryAt };
}

function cooldownOf(last: FailureRecord, failures: readonly FailureRecord[], config: AntiThrashConfig): number {
  if (last.reason === "timeout") {
    let streak = 0;
    for (let i = failures.length - 1; i >= 0 && failures[i]?.reason === "timeout"; i--) streak++;
    const steps = config.timeoutCooldownsMs;
    return steps[Math.min(streak, steps.length) - 1] ?? 0;
  }
  if (last.reason === "rate-limited" && last.retryAfterMs !== undefined) return last.retryAfterMs;
  return config.cooldownMs[last.reason as Exclude<SummarizerFailure, "auth" | "timeout">];
}

import {
  compactionThreshold,
  compareWithUsage,
  definedFields,
  type ImportedSession,
  initialState,
  type MicroSettings,
  OfflineSummarizer,
  type ProfileChoice,
  type ProviderProfile,
  type Summarizer,
  type UsageComparison,
  ValidationError,
} from "@palimpsest/core";
import type { Session } from "@palimpsest/runtime";
import { openPalimpsest, PrecompactionScheduler, resolveCompaction, resolveProfile } from "@palimpsest/runtime";
import type { ReplayCompaction } from "./observe-micro.ts";
import { type PolicyReplay, policyReplay } from "./policy-replay.ts";
import { readingConversation } from "./reading-conversation.ts";
import { REPLAY_RUN_NAMES, type ReplayRun, type ReplayRunName, replayRun } from "./replay-policy.ts";
import { checkWindow, replaySession, type SessionReplay } from "./replay-session.ts";
import { type SessionCacheModel, summarizerPrices, type TtlSource } from "./session-cache-model.ts";
import { type CacheModelOptions, readSource, type SourceReading, sessionCacheModel } from "./session-calibration.ts";
import { transcriptProfileChoice } from "./transcript-profile.ts";

/** Where a long replay stands: which policy, which session (1-based of `sessions`), requests done of `requests`. */
export interface ReplayProgress {
  policy: ReplayRunName;
  session: number;
  sessions: number;
  done: number;
  requests: number;
}

/**
 * How a transcript is replayed: the runs to compare and the window, profile and store they run with, and
 * what the cache model is told beyond the transcript (fixed prefix, lifetime, the agent's and the
 * summarizer's models).
 */
export interface ReplayOptions extends CacheModelOptions {
  /** `--summarizer-model`: prices the summarizer's calls (default the agent's model: `model`, else the first session's). */
  summarizerModel?: string;
  /** Batch policies and micro runs (`micro`, `micro+summary`, `micro+prune-first`), each a row. */
  policies: readonly ReplayRunName[];
  /** Settings of the micro passes in micro runs (default: the runtime's, `{}`). */
  micro?: Partial<MicroSettings>;
  /** A profile or a built-in profile's name (default: inferred, see transcriptProfileChoice). */
  profile?: ProviderProfile | string;
  contextWindow: number;
  maxOutputTokens?: number;
  summarizer?: Summarizer;
  /**
   * `--summarizer-reads-conversation`: the summarizer (default the offline one) reads each span inside the
   * conversation, as the agent's own request with the agent's model (Summarizer.readsConversation): the
   * policies price it so, and each batch summary is billed as a request through the agent's cache. Not with
   * `summarizerModel`.
   */
  summarizerReadsConversation?: boolean;
  /** What a fact a summary drops is worth to cost-optimal (CompactionSettings.lostFactUsd; default: no trade). */
  lostFactUsd?: number;
  /** The replay store (default `:memory:`, thrown away afterwards). */
  url?: string;
  /**
   * Background pre-compaction in every run: one scheduler per run over the replay store (debounce 0, the
   * job awaited after each turn), batch compactions through it, the cold summary timed on each hit.
   */
  precompact?: boolean;
  onProgress?: (progress: ReplayProgress) => void;
  onCompaction?: (session: Session, compaction: ReplayCompaction, policy: ReplayRunName) => void | Promise<void>;
  /** Called with each source session's replay under each run, in order (e.g. to chart its requests). */
  onSessionReplayed?: (run: SessionReplay, policy: ReplayRunName) => void;
}

/** What the cache model used for one source session: its calibration, lifetime, times and window. */
export interface SessionCacheSummary {
  externalId: string;
  model: string | null;
  /** Provider tokens per one of ours, and where it came from (`usage`: fitted; `none`: 1). */
  tokenScale: number;
  tokenScaleSource: string;
  /** Requests with usage the calibration was fitted on (before the source's own compaction). */
  calibrationRequests: number;
  /** The fixed prefix (system prompt and tools) of the session's first model, and how much of it was cached already. */
  fixedPrefixTokens: number;
  warmPrefixTokens: number;
  fixedPrefixSource: string;
  ttlSeconds: number;
  ttlSource: TtlSource;
  /** False when the transcript has no times: then no entry ever expires. */
  timed: boolean;
  /** Requests before which the usage shows the fixed prefix changed (modelled as written again, under every policy). */
  prefixResets: number;
  /** The window the replay session got, in our tokens. */
  budgetWindow: number;
}

/** A transcript replayed under each policy, with the cache model checked against real usage where there is some. */
export interface TranscriptReplay {
  policies: PolicyReplay[];
  /** Estimated vs real cache figures over the requests before each session's own compaction; null without usage. */
  usageComparison: UsageComparison | null;
  /** The cache model of every session, in order. */
  cacheModel: SessionCacheSummary[];
  /** The models prices came from: the agent's (`--model`, else per request from the transcript) and the summarizer's. */
  models: { agent: string | null; summarizer: string | null };
  /** The profile every run used, and why (given, or inferred from the model or the format); absent in a replay merged from several. */
  profile?: ProfileChoice;
}

/**
 * Replays every session of a parsed transcript under each run in turn, each into its own fresh
 * session of one throwaway store, and folds the sessions into one metrics row per run.
 */
export async function replayTranscript(
  sessions: readonly ImportedSession[],
  options: ReplayOptions,
): Promise<TranscriptReplay> {
  const profileChoice = transcriptProfileChoice(sessions, options);
  const profile =
    typeof options.profile === "object" ? options.profile : resolveProfile({ profile: profileChoice.name }, undefined);
  const maxOutputTokens = resolveCompaction(
    {
      profile,
      contextWindow: options.contextWindow,
      ...definedFields({ maxOutputTokens: options.maxOutputTokens }),
    },
    initialState("replay"),
    () => 0,
  ).maxOutputTokens;
  const threshold = compactionThreshold(options.contextWindow, maxOutputTokens, profile.threshold);
  const readings: { reading: SourceReading; cacheModel: SessionCacheModel }[] = [];
  for (const source of sessions) {
    const reading = await readSource(source);
    const cacheModel = sessionCacheModel(source, reading, profile, options);
    // Before any run: a window the fixed prefix fills is refused up front, not after the first policy.
    checkWindow(options.contextWindow, cacheModel, source.externalId);
    readings.push({ reading, cacheModel });
  }
  const summarizer = replaySummarizer(options);
  const agentModel = options.model ?? sessions[0]?.model;
  const summarizerModel = options.summarizerModel ?? agentModel;
  const runtime = await openPalimpsest({ url: options.url ?? ":memory:" });
  try {
    const policies: PolicyReplay[] = [];
    let runs: SessionReplay[] = [];
    for (const run of options.policies.map(runNamed)) {
      const policy = run.name;
      runs = [];
      const precompact =
        options.precompact === true && run.policy !== "none"
          ? new PrecompactionScheduler({
              candidates: runtime.store,
              compaction: {
                policy: run.policy,
                profile,
                contextWindow: options.contextWindow,
                maxOutputTokens,
                ...(run.micro ? { micro: options.micro ?? {} } : {}),
                ...definedFields({ summarizer, lostFactUsd: options.lostFactUsd }),
              },
              precompact: { debounceMs: 0 },
            })
          : undefined;
      try {
        for (const [i, source] of sessions.entries()) {
          const requests = source.items.filter((it) => it.kind === "message" && it.message.role === "assistant").length;
          const progress = { policy, session: i + 1, sessions: sessions.length, requests };
          const replayed = await replaySession(runtime, source, {
            policy: run.policy,
            ...(run.micro ? { micro: options.micro ?? {} } : {}),
            profile,
            contextWindow: options.contextWindow,
            maxOutputTokens,
            ...definedFields({ summarizer, lostFactUsd: options.lostFactUsd }),
            summarizerPrices: summarizerPrices(profile, summarizerModel),
            ...definedFields({ precompact }),
            ...definedFields({ source: readings[i] }),
            onRequest: (done) => options.onProgress?.({ ...progress, done }),
            onCompaction: (session, compaction) => options.onCompaction?.(session, compaction, policy),
          });
          runs.push(replayed);
          options.onSessionReplayed?.(replayed, policy);
        }
      } finally {
        precompact?.dispose();
      }
      const label = {
        policy,
        profile: profile.name,
        contextWindow: options.contextWindow,
        threshold: run.policy === "none" ? null : threshold,
        summarizerPrices: summarizerPrices(profile, summarizerModel),
        ...(precompact === undefined ? {} : { precompact: precompact.stats() }),
      };
      policies.push(policyReplay(label, runs));
    }
    const pairs = runs.flatMap((r) => r.usagePairs);
    const usageComparison =
      pairs.length === 0
        ? null
        : compareWithUsage(
            pairs.map((p) => p.estimated),
            pairs.map((p) => p.real),
          );
    const cacheModel = runs.map(cacheSummary);
    return {
      policies,
      usageComparison,
      cacheModel,
      models: { agent: options.model ?? null, summarizer: summarizerModel ?? null },
      profile: profileChoice,
    };
  } finally {
    await runtime.close();
  }
}

function runNamed(name: ReplayRunName): ReplayRun {
  const run = replayRun(name);
  if (run === undefined)
    throw new ValidationError(`unknown replay run ${name}`, [`policies: ${REPLAY_RUN_NAMES.join(", ")}`]);
  return run;
}

function cacheSummary(run: SessionReplay): SessionCacheSummary {
  const { calibration, ttlSeconds, ttlSource, timed, sessionModel, prefixResets } = run.cacheModel;
  const prefix = calibration.prefixes[0];
  return {
    externalId: run.externalId,
    model: sessionModel ?? null,
    tokenScale: calibration.scale,
    tokenScaleSource: calibration.scaleSource,
    calibrationRequests: calibration.points,
    fixedPrefixTokens: prefix?.tokens ?? 0,
    warmPrefixTokens: prefix?.warmTokens ?? 0,
    fixedPrefixSource: calibration.prefixSource,
    ttlSeconds,
    ttlSource,
    timed,
    prefixResets: prefixResets.size,
    budgetWindow: run.budgetWindow,
  };
}

/** The summarizer the runs use: the given one (default offline), read as reading the conversation when asked. */
function replaySummarizer(options: ReplayOptions): Summarizer | undefined {
  if (options.summarizerReadsConversation !== true) return options.summarizer;
  if (options.summarizerModel !== undefined) {
    const message =
      "a summarizer that reads the conversation is the agent's model: summarizerModel cannot be set with it";
    const issue = "must be unset when summarizerReadsConversation is true";
    throw new ValidationError(message, [{ path: "summarizerModel", code: "custom", message: issue }]);
  }
  return readingConversation(options.summarizer ?? new OfflineSummarizer());
}

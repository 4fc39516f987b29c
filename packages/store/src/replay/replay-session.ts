import {
  type CacheEstimate,
  type CacheState,
  type CompactionObservation,
  estimateFigures,
  type ImportedSession,
  initialCacheState,
  type Message,
  type PromptMessage,
  type ProviderProfile,
  type Summarizer,
  stepCache,
  type UsageFigures,
  usageFigures,
} from "@palimpsest/core";
import { compact } from "../runtime/compact.ts";
import type { PolicyName } from "../runtime/compaction-settings.ts";
import type { Palimpsest } from "../runtime/palimpsest.ts";
import type { Session } from "../runtime/session.ts";
import { cacheRulesForProfile } from "./cache-rules-for-profile.ts";
import { observeCompaction } from "./observe-compaction.ts";
import { promptMessage, promptMessages } from "./prompt-messages.ts";

/** A policy a replay can run: a runtime policy, or `none` (never compact: the baseline). */
export type ReplayPolicy = PolicyName | "none";

/** How one source session is replayed. */
export interface SessionReplayOptions {
  policy: ReplayPolicy;
  profile: ProviderProfile;
  contextWindow: number;
  /** Default: the profile's, at most a quarter of the window (as the runtime decides). */
  maxOutputTokens?: number;
  /** Default: the offline summarizer. */
  summarizer?: Summarizer;
  /** Called after every replayed provider request with the number done. */
  onRequest?: (done: number) => void;
  /** Called after every committed compaction, with the replay session (e.g. to check its view). */
  onCompaction?: (session: Session, compaction: CompactionObservation) => void | Promise<void>;
}

/** An estimated and a real usage figure for one request before the source's own compaction. */
export interface UsagePair {
  estimated: UsageFigures;
  real: UsageFigures;
}

/** What replaying one source session under one policy produced. */
export interface SessionReplay {
  externalId: string;
  /** The replay session's id in the replay store. */
  sessionId: string;
  /** The cache estimate of every provider request, in order. */
  estimates: CacheEstimate[];
  compactions: CompactionObservation[];
  /** Summaries that failed (the view was left as it was). */
  summaryFailures: number;
  /** Requests whose prompt exceeded the context window. */
  overflowTurns: number;
  /** Index of the first request after the source's own compaction; undefined when it had none. */
  realCompactionAt: number | undefined;
  /**
   * For requests before the source's compaction that carry provider usage: the cache model's estimate
   * of the uncompacted transcript next to the provider's real figures (independent of the policy).
   */
  usagePairs: UsagePair[];
}

/**
 * Replays one imported session request by request into a fresh session of `runtime`. A request is
 * the view just before an assistant message (which is its completion); before every request but the
 * first, the policy gets one compaction check. The source's own compactions are skipped but noted.
 */
export async function replaySession(
  runtime: Palimpsest,
  source: ImportedSession,
  options: SessionReplayOptions,
): Promise<SessionReplay> {
  const { policy, profile, contextWindow } = options;
  const rules = cacheRulesForProfile(profile);
  const session = await runtime.startSession({
    contextWindow,
    profile: profile.name,
    ...(source.model === undefined ? {} : { model: source.model }),
    source: { format: source.format, externalId: source.externalId },
  });
  const result: SessionReplay = {
    externalId: source.externalId,
    sessionId: session.id,
    estimates: [],
    compactions: [],
    summaryFailures: 0,
    overflowTurns: 0,
    realCompactionAt: undefined,
    usagePairs: [],
  };
  const uncompacted: PromptMessage[] = [];
  let cache: CacheState = initialCacheState;
  let baseline: CacheState = initialCacheState;
  let pending: Message[] = [];
  const append = async (messages: Message[], turnId?: string): Promise<void> => {
    if (messages.length === 0) return;
    const from = session.state.live.length;
    await session.append(messages, turnId === undefined ? {} : { turnId });
    for (const entry of session.state.live.slice(from)) uncompacted.push(promptMessage(entry));
  };
  for (const item of source.items) {
    if (item.kind === "compaction") {
      result.realCompactionAt ??= result.estimates.length;
      continue;
    }
    const { message, usage } = item;
    if (message.role !== "assistant") {
      pending.push(message);
      continue;
    }
    await append(pending);
    pending = [];
    const requestIndex = result.estimates.length;
    if (policy !== "none" && requestIndex > 0) await compactOnce(session, options, requestIndex - 1, result);
    const prompt = promptMessages(session.state.live);
    const baselinePrompt = [...uncompacted];
    await append([message], message.id);
    const completionTokens = session.state.live.at(-1)?.tokens ?? 0;
    const step = stepCache(cache, { messages: prompt, completionTokens }, rules);
    cache = step.state;
    result.estimates.push(step.estimate);
    if (step.estimate.promptTokens > contextWindow) result.overflowTurns += 1;
    if (result.realCompactionAt === undefined) {
      const base = stepCache(baseline, { messages: baselinePrompt, completionTokens }, rules);
      baseline = base.state;
      const real = usage === undefined ? undefined : usageFigures(usage);
      if (real !== undefined) result.usagePairs.push({ estimated: estimateFigures(base.estimate), real });
    }
    if (usage !== undefined) await session.completeTurn(message.id, usage);
    options.onRequest?.(result.estimates.length);
  }
  await append(pending);
  return result;
}

/** One compaction check with the replay's settings; records what it committed or that it failed. */
async function compactOnce(
  session: Session,
  options: SessionReplayOptions,
  requestIndex: number,
  result: SessionReplay,
): Promise<void> {
  if (options.policy === "none") return;
  const viewBefore = session.state.live;
  const outcome = await compact(session, {
    policy: options.policy,
    profile: options.profile,
    contextWindow: options.contextWindow,
    trigger: "auto",
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
  });
  if (outcome.status === "failed") result.summaryFailures += 1;
  if (outcome.status !== "compacted") return;
  const observation = observeCompaction(outcome, viewBefore, requestIndex);
  result.compactions.push(observation);
  await options.onCompaction?.(session, observation);
}

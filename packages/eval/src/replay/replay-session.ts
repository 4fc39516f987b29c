import {
  type CacheEstimate,
  type CompactionFidelity,
  conversationEnd,
  definedFields,
  estimateFigures,
  FidelityTracker,
  type ImportedSession,
  type Message,
  type PerKind,
  type PromptMessage,
  type ProviderProfile,
  type RequestRecall,
  type Usage,
  type UsageFigures,
  usageFigures,
  ValidationError,
} from "@palimpsest/core";
import type { Palimpsest, RequestTimes, Session } from "@palimpsest/runtime";
import { type CompactionStepOptions, compactionStep, type SyncCompaction } from "./compaction-step.ts";
import type { ReplayCompaction } from "./observe-micro.ts";
import { promptMessages, sourcePromptMessage } from "./prompt-messages.ts";
import {
  billedModel,
  CacheSimulation,
  realCost,
  rulesForModel,
  type SessionCacheModel,
} from "./session-cache-model.ts";
import { readSource, type SourceReading, sessionCacheModel } from "./session-calibration.ts";

/**
 * How one source session is replayed: the batch policy, micro settings (given: a micro pass after every
 * request the batch policy did not compact; `{}` for the defaults), profile, window and summarizer
 * (default: the offline one; the max output tokens default to the profile's, at most a quarter of the window).
 */
export interface SessionReplayOptions extends CompactionStepOptions {
  /** Called after every replayed provider request with the number done. */
  onRequest?: (done: number) => void;
  /** Called after every committed compaction (batch or micro), with the replay session (e.g. to check its view). */
  onCompaction?: (session: Session, compaction: ReplayCompaction) => void | Promise<void>;
  /**
   * The source read once and its cache model (calibration, lifetime, prices); default: read here, the
   * calibration fitted on the source's own usage with the profile's defaults.
   */
  source?: { reading: SourceReading; cacheModel: SessionCacheModel };
}

/** An estimated and a real usage figure for one request before the source's own compaction. */
export interface UsagePair {
  estimated: UsageFigures;
  real: UsageFigures;
}

/** A committed compaction of a replay with its fidelity: what it removed of the prompt and what its replacements kept. */
export interface MeasuredCompaction extends ReplayCompaction {
  fidelity: CompactionFidelity;
  /**
   * A batch summary's summarizer call as a request of the agent's, when the summarizer reads the
   * conversation (Summarizer.readsConversation): the prompt as it stood up to the agent's last request
   * (conversationEnd) and the instruction after it, through
   * the same cache as the agent's requests, just before the request the compaction precedes. It is billed
   * at this estimate, not at the summarizer's prices.
   */
  summarizerRequest?: CacheEstimate;
}

/** What replaying one source session under one policy produced. */
export interface SessionReplay {
  externalId: string;
  /** The replay session's id in the replay store. */
  sessionId: string;
  /** The cache estimate of every provider request, in order. */
  estimates: CacheEstimate[];
  /** The provider's usage of every request as the source has it (undefined where it has none), in order. */
  realUsage: (Usage | undefined)[];
  /** Every committed compaction in order, batch and micro. */
  compactions: MeasuredCompaction[];
  /** Each request's recall: what its prompt held of what the conversation had held so far. */
  recalls: RequestRecall[];
  /** Distinct fidelity items the source session held by its end. */
  held: PerKind<number>;
  /** Each committed batch compaction's synchronous time, in order, marked when it used a candidate. */
  syncCompactions: SyncCompaction[];
  /** Summaries that failed, batch or micro (the view was left as it was). */
  summaryFailures: number;
  /** Requests whose prompt (in provider tokens, with the fixed prefix) exceeded the context window. */
  overflowTurns: number;
  /**
   * USD below which no policy that sends every message once whole can go, the same under every policy:
   * each request reads the fixed prefix (writes it where it expired or changed) and writes only what the
   * conversation added since the request before, at that request's model's prices, plus its output. No
   * summarizer call is counted.
   */
  floorCost: number;
  /** The cache model the session was replayed with. */
  cacheModel: SessionCacheModel;
  /** The window the replay session got, in our tokens: (window − fixed prefix) ÷ scale. */
  budgetWindow: number;
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
 * the view just before an assistant message (which is its completion), and each completion completes a
 * turn; before every request but the first, one compaction step runs (compactionStep). The source's own
 * compactions are skipped but noted.
 */
export async function replaySession(
  runtime: Palimpsest,
  source: ImportedSession,
  options: SessionReplayOptions,
): Promise<SessionReplay> {
  const { profile, contextWindow } = options;
  const reading = options.source?.reading ?? (await readSource(source));
  const cacheModel = options.source?.cacheModel ?? sessionCacheModel(source, reading, profile, {});
  const { scale } = cacheModel.calibration;
  const prefixTokens = checkWindow(contextWindow, cacheModel, source.externalId);
  const budgetWindow = Math.max(1, Math.floor((contextWindow - prefixTokens) / scale));
  // The policies weigh what the cache model bills: the session's model's prices and the entry lifetime it found.
  const rules = rulesForModel(cacheModel, billedModel(cacheModel, undefined));
  const priced: ProviderProfile = {
    ...profile,
    cache: { ...profile.cache, ttlSeconds: rules.ttlSeconds },
    prices: rules.prices,
  };
  const stepOptions: CompactionStepOptions = {
    ...options,
    profile: priced,
    contextWindow: budgetWindow,
    tokenScale: scale,
  };
  const session = await runtime.startSession({
    contextWindow: budgetWindow,
    profile: profile.name,
    ...definedFields({ model: source.model }),
    source: { format: source.format, externalId: source.externalId },
  });
  const result: SessionReplay = {
    externalId: source.externalId,
    sessionId: session.id,
    estimates: [],
    realUsage: [],
    compactions: [],
    syncCompactions: [],
    summaryFailures: 0,
    overflowTurns: 0,
    floorCost: 0,
    cacheModel,
    budgetWindow,
    realCompactionAt: undefined,
    usagePairs: [],
    recalls: [],
    held: { userRequests: 0, filePaths: 0, errorNames: 0, commands: 0, numbers: 0 },
  };
  const fidelity = new FidelityTracker();
  const cache = new CacheSimulation(cacheModel);
  const baseline = new CacheSimulation(cacheModel);
  // The floor's requests carry only what the source added since the request before (sent of it so far).
  const floor = new CacheSimulation(cacheModel);
  let sent = 0;
  const sourcePrompt: PromptMessage[] = [];
  let pending: Message[] = [];
  const append = async (messages: Message[], turnId?: string): Promise<void> => {
    if (messages.length === 0) return;
    const from = session.state.live.length;
    await session.append(messages, turnId === undefined ? {} : { turnId });
    const appended = session.state.live.slice(from);
    for (const message of messages) sourcePrompt.push(sourcePromptMessage(message, reading.tokens.get(message.id)));
    // The originals, as the source has them (an insertion-time trim may have stubbed one in the view).
    const tokens = new Map(appended.map((e) => [e.message.id, e.tokens]));
    for (const message of messages) fidelity.append({ message, tokens: tokens.get(message.id) ?? 0 });
    fidelity.compaction(session.state.live);
  };
  for (const item of source.items) {
    if (item.kind === "compaction") {
      result.realCompactionAt ??= result.estimates.length;
      continue;
    }
    const { message, usage, model } = item;
    if (message.role !== "assistant") {
      pending.push(message);
      continue;
    }
    await append(pending);
    pending = [];
    const requestIndex = result.estimates.length;
    // The transcript's request times, as the cache model reads them: this request's and the one before.
    const nowMs = reading.requests[requestIndex]?.atMs;
    const previousRequestMs = reading.requests[requestIndex - 1]?.atMs;
    const times = nowMs === undefined ? undefined : { nowMs, ...definedFields({ previousRequestMs }) };
    if (requestIndex > 0) {
      const live = session.state.live;
      const before = promptMessages(live, profile.cache.summaryBreakpoint === true);
      // A summarizer reading the conversation sends it up to the agent's last request (conversationEnd),
      // the span's end if that is later, and its instruction after it.
      const asRequest = (committed: ReplayCompaction): CacheEstimate | undefined =>
        committed.kind !== "summary" ||
        committed.spanEnd === undefined ||
        options.summarizer?.readsConversation !== true
          ? undefined
          : cache.step({
              index: -1,
              model,
              atMs: nowMs,
              outputTokens: committed.auxOutputTokens,
              messages: [
                ...before.slice(0, conversationEnd(live, committed.spanEnd)),
                summaryInstruction(requestIndex),
              ],
            });
      await stepBefore(session, stepOptions, requestIndex - 1, result, fidelity, times, asRequest);
    }
    const prompt = promptMessages(session.state.live, profile.cache.summaryBreakpoint === true);
    result.recalls.push(fidelity.request(session.state.live));
    const baselinePrompt = [...sourcePrompt];
    await append([message], message.id);
    // The provider's output count where the usage has one (it includes reasoning we do not count), else ours scaled.
    const ours = session.state.live.at(-1)?.tokens ?? 0;
    const outputTokens = usage?.completionTokens ?? Math.round(ours * scale);
    const request = { index: requestIndex, model, atMs: nowMs, outputTokens };
    const estimate = cache.step({ ...request, messages: prompt });
    result.estimates.push(estimate);
    result.realUsage.push(usage);
    result.floorCost += floor.step({ ...request, messages: baselinePrompt.slice(sent) }).cost;
    sent = baselinePrompt.length;
    if (estimate.promptTokens > contextWindow) result.overflowTurns += 1;
    if (result.realCompactionAt === undefined) {
      const base = baseline.step({ ...request, messages: baselinePrompt });
      const real = usage === undefined ? undefined : usageFigures(usage);
      const cost = usage === undefined ? undefined : realCost(usage, billedModel(cacheModel, model), profile);
      if (real !== undefined && cost !== undefined) {
        result.usagePairs.push({ estimated: estimateFigures(base), real: { ...real, cost } });
      }
    }
    await session.completeTurn(message.id, usage);
    if (options.precompact !== undefined) {
      // The background job runs between turns; the replay waits for it so runs are deterministic.
      options.precompact.onTurnCompleted(session);
      await options.precompact.idle();
    }
    options.onRequest?.(result.estimates.length);
  }
  await append(pending);
  result.held = fidelity.held();
  return result;
}

/**
 * The instruction a summarizer reading the conversation adds after it, as the cache model sees it: new
 * content at every call (it names the span), about the size of the summary prompt's frame.
 */
function summaryInstruction(requestIndex: number): PromptMessage {
  const id = `summary-instruction#${requestIndex}`;
  return { id, tokens: 600, contentHash: id };
}

/**
 * The session's fixed prefix, once the window is known to hold more than it; a window no larger (every
 * request would overflow under every policy) is a ValidationError naming both.
 */
export function checkWindow(contextWindow: number, cacheModel: SessionCacheModel, externalId: string): number {
  const prefixTokens = fixedPrefixTokens(cacheModel);
  if (contextWindow > prefixTokens) return prefixTokens;
  const message = `the context window (${contextWindow} tokens) is no larger than session ${externalId}'s fixed prefix (${prefixTokens} tokens): every request would overflow`;
  const issue = `must be larger than the fixed prefix (${prefixTokens} tokens)`;
  throw new ValidationError(message, [{ path: "contextWindow", code: "custom", message: issue }]);
}

/**
 * The context window (provider tokens, what a replay takes) whose replay session gets `ours` of our tokens:
 * the inverse of the replay's window, `(window − fixed prefix) ÷ scale`.
 */
export function providerWindow(ours: number, cacheModel: SessionCacheModel): number {
  return Math.ceil(ours * cacheModel.calibration.scale) + fixedPrefixTokens(cacheModel);
}

/** The fixed prefix of the session's first model: what the replay's window is measured from. */
function fixedPrefixTokens(cacheModel: SessionCacheModel): number {
  return cacheModel.calibration.prefixes[0]?.tokens ?? 0;
}

/**
 * One compaction step before the next request; records what it committed (with its fidelity and, priced as a
 * request by `asRequest`, a summarizer call that read the conversation) or that a summary failed.
 */
async function stepBefore(
  session: Session,
  options: SessionReplayOptions,
  requestIndex: number,
  result: SessionReplay,
  fidelity: FidelityTracker,
  times: RequestTimes | undefined,
  asRequest: (committed: ReplayCompaction) => CacheEstimate | undefined,
): Promise<void> {
  if (options.policy === "none" && options.micro === undefined) return;
  const step = await compactionStep(session, options, requestIndex, times);
  if (step.failed) result.summaryFailures += 1;
  if (step.sync !== undefined) result.syncCompactions.push(step.sync);
  if (step.committed === undefined) return;
  const summarizerRequest = asRequest(step.committed);
  const measured = {
    ...step.committed,
    fidelity: fidelity.compaction(session.state.live),
    ...definedFields({ summarizerRequest }),
  };
  result.compactions.push(measured);
  await options.onCompaction?.(session, measured);
}

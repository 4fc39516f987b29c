import {
  type CompactionFailed,
  type MicroAbsorbPlan,
  type MicroDefragPlan,
  type MicroPlan,
  type MicroSettings,
  microInputFor,
  OfflineSummarizer,
  planMicro,
  type Replacement,
  redactSecrets,
  resolveMicroSettings,
  rollingSummaryReplacement,
  type StoredEvent,
  type Summarizer,
  type SummaryRequest,
  type SummaryResult,
  serializeForSummary,
  type TokenCounter,
  tailBudget,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import { type CompactionSettings, resolveProfile } from "./compaction-settings.ts";
import { type SummaryFailure, summaryFailure } from "./summarize-entries.ts";

/** Options of one micro pass: the micro settings, and the window, profile and summarizer (as in CompactionSettings). */
export interface MicroCompactOptions
  extends Partial<MicroSettings>,
    Pick<CompactionSettings, "profile" | "contextWindow" | "summarizer" | "summaryTimeoutMs"> {
  /** Tokens of the protected tail (default: the batch policies' tail budget for the window and profile). */
  tailTokens?: number;
  /** Default "auto": micro passes run after completed turns. */
  trigger?: "manual" | "auto";
}

/** What one micro pass did, with the view's tokens before and after (telemetry: no transcript content). */
export interface MicroOutcome {
  outcome: "absorbed" | "defragged" | "skipped" | "failed" | "noop";
  reason: string;
  plan: MicroPlan;
  tokensBefore: number;
  tokensAfter: number;
  /** Tokens of the exchange absorbed (or attempted). */
  exchangeTokens?: number;
  /** Tokens of the new marker (or, for an ineffective defrag, of the rejected one). */
  rollingSummaryTokens?: number;
  durationMs: number;
  /** The supersede event committed, or the compaction-failed event recorded. */
  event?: StoredEvent;
}

const DEFAULT_CONTEXT_WINDOW = 200_000;

/**
 * Runs one micro pass on a session: plans it from the log, calls the summarizer (default offline), and
 * commits exactly one supersede event compare-and-set on the view version it planned from (a concurrent
 * compaction makes it throw ConcurrencyConflict). A summarizer failure, or a defrag that did not shrink the
 * marker, is recorded as compaction-failed; the view is then untouched.
 */
export async function microCompact(session: Session, options: MicroCompactOptions = {}): Promise<MicroOutcome> {
  const started = Date.now();
  const state = session.state;
  const profile = resolveProfile(options, state.started);
  const contextWindow = options.contextWindow ?? state.started?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const tailTokens = options.tailTokens ?? tailBudget(contextWindow, profile.tail);
  const plan = planMicro(microInputFor(state, microSettings(options), tailTokens));
  const basis = state.viewVersion; // read with the plan: the state may move during the awaits below
  const base = { plan, reason: plan.reason, tokensBefore: state.liveTokens, tokensAfter: state.liveTokens };
  if (plan.kind === "none" || plan.kind === "skip") {
    return { ...base, outcome: plan.kind === "none" ? "noop" : "skipped", durationMs: Date.now() - started };
  }
  const pass: Pass = {
    session,
    summarizer: options.summarizer ?? new OfflineSummarizer(),
    timeoutMs: options.summaryTimeoutMs ?? 120_000,
    counter: await session.tokenCounter(),
    producer: { policy: "micro", profile: profile.name },
    trigger: options.trigger ?? "auto",
    basis,
    started,
  };
  const outcome = plan.kind === "absorb" ? await absorb(pass, plan) : await defrag(pass, plan);
  return { ...base, ...outcome, tokensAfter: session.state.liveTokens, durationMs: Date.now() - started };
}

/** The micro settings among the options (everything that is not about the window, profile or summarizer). */
function microSettings(options: MicroCompactOptions): MicroSettings {
  const { enabled, everyNTurns, defragLimitTokens, maxAttempts } = options;
  return resolveMicroSettings({
    ...(enabled === undefined ? {} : { enabled }),
    ...(everyNTurns === undefined ? {} : { everyNTurns }),
    ...(defragLimitTokens === undefined ? {} : { defragLimitTokens }),
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
  });
}

/** One pass's collaborators, and the view version it planned from (the compare-and-set basis). */
interface Pass {
  session: Session;
  summarizer: Summarizer;
  timeoutMs: number;
  counter: TokenCounter;
  producer: { policy: string; profile: string };
  trigger: "manual" | "auto";
  basis: number;
  started: number;
}

/** What absorb or defrag add to the outcome. */
type StepOutcome = Pick<MicroOutcome, "outcome" | "reason" | "exchangeTokens" | "rollingSummaryTokens" | "event">;

async function absorb(pass: Pass, plan: MicroAbsorbPlan): Promise<StepOutcome> {
  const exchangeTokens = plan.exchange.reduce((n, e) => n + e.tokens, 0);
  const exchange = plan.exchange.map((e) => e.message.id);
  const request: SummaryRequest = {
    messages: serializeForSummary(plan.exchange.map((e) => e.message)),
    maxOutputTokens: plan.maxSummaryTokens,
    ...(plan.previousSummary === undefined ? {} : { previousSummary: redactSecrets(plan.previousSummary) }),
  };
  const result = await summarize(pass, request);
  if (!("text" in result)) {
    const attempt = pass.session.state.micro.failedExchanges.filter((id) => id === exchange[0]).length + 1;
    const event = await recordFailure(pass, { ...result, mode: "micro", attempt, targets: exchange });
    return { outcome: "failed", reason: result.detail, exchangeTokens, event };
  }
  const replacement = rollingSummaryReplacement(uuidv7(), redactSecrets(result.text), countWith(pass), plan.at);
  const event = await commit(pass, "micro", plan.targets, replacement, result);
  return { outcome: "absorbed", reason: plan.reason, exchangeTokens, rollingSummaryTokens: replacement.tokens, event };
}

async function defrag(pass: Pass, plan: MicroDefragPlan): Promise<StepOutcome> {
  const targets = [plan.marker.message.id];
  const result = await summarize(pass, {
    messages: [],
    previousSummary: redactSecrets(plan.summary),
    maxOutputTokens: plan.maxSummaryTokens,
  });
  if (!("text" in result)) {
    const event = await recordFailure(pass, { ...result, mode: "defrag", attempt: 1, targets });
    return { outcome: "failed", reason: result.detail, event };
  }
  const replacement = rollingSummaryReplacement(uuidv7(), redactSecrets(result.text), countWith(pass));
  if (replacement.tokens >= plan.marker.tokens) {
    const detail = `defrag did not shrink the rolling summary (${plan.marker.tokens} → ${replacement.tokens} tokens)`;
    const event = await recordFailure(pass, { reason: "other", detail, mode: "defrag", attempt: 1, targets });
    return { outcome: "failed", reason: detail, rollingSummaryTokens: replacement.tokens, event };
  }
  const event = await commit(pass, "defrag", targets, replacement, result);
  return { outcome: "defragged", reason: plan.reason, rollingSummaryTokens: replacement.tokens, event };
}

async function summarize(pass: Pass, request: SummaryRequest): Promise<SummaryResult | SummaryFailure> {
  try {
    return await pass.summarizer.summarize(request, { signal: AbortSignal.timeout(pass.timeoutMs) });
  } catch (error) {
    return summaryFailure(error, pass.summarizer);
  }
}

async function recordFailure(pass: Pass, failure: CompactionFailed): Promise<StoredEvent> {
  const [event] = await pass.session.recordCompactionFailure(failure);
  return event as StoredEvent;
}

async function commit(
  pass: Pass,
  mode: "micro" | "defrag",
  targets: string[],
  replacement: Replacement,
  result: SummaryResult,
): Promise<StoredEvent> {
  const { session, summarizer } = pass;
  const live = new Set(targets);
  const removed = session.state.live.reduce((n, e) => (live.has(e.message.id) ? n + e.tokens : n), 0);
  const tokensBefore = session.state.liveTokens;
  const [event] = await session.supersede({
    compactionId: uuidv7(),
    targets,
    replacements: [replacement],
    mode,
    basis: { viewVersion: pass.basis },
    producer: { ...pass.producer, summarizerModel: summarizer.model, promptVersion: summarizer.promptVersion },
    stats: {
      tokensBefore,
      tokensAfter: tokensBefore - removed + replacement.tokens,
      durationMs: Date.now() - pass.started,
      ...(result.inputTokens === undefined ? {} : { auxTokensIn: result.inputTokens }),
      ...(result.outputTokens === undefined ? {} : { auxTokensOut: result.outputTokens }),
    },
    trigger: pass.trigger,
  });
  return event as StoredEvent;
}

function countWith(pass: Pass): (message: Replacement["message"]) => number {
  return (message) => pass.counter.countMessage(message);
}

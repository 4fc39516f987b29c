import {
  checkOptions,
  definedFields,
  MICRO_SETTINGS_SHAPE,
  type MicroAbsorbPlan,
  type MicroDefragPlan,
  type MicroPlan,
  type MicroSettings,
  microInputFor,
  OfflineSummarizer,
  type OptionShape,
  OptionValues,
  planMicro,
  type Replacement,
  resolveMicroSettings,
  rollingSummaryReplacement,
  type SessionState,
  type StoredEvent,
  type Summarizer,
  type SummaryResult,
  type SupersedeSpec,
  type TokenCounter,
  tailBudget,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import { resolveProfile } from "./compaction-budget.ts";
import type { CompactionSettings } from "./compaction-settings.ts";
import { commitCompaction, type Preparation, type PreparedCompaction, prepareSummary } from "./execute-compaction.ts";
import { SETTING_VALUES } from "./setting-values.ts";
import { summaryAux } from "./summary-aux.ts";

/** Options of one micro pass: the micro settings, and the window, profile and summarizer (as in CompactionSettings). */
export interface MicroCompactOptions
  extends Partial<MicroSettings>,
    Pick<CompactionSettings, "profile" | "contextWindow" | "summarizer" | "summaryTimeoutMs" | "recallTool"> {
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

/** Every key of MicroCompactOptions with its value's schema (checkOptions). */
export const MICRO_COMPACT_OPTION_SHAPE: OptionShape<MicroCompactOptions> = {
  ...MICRO_SETTINGS_SHAPE,
  profile: SETTING_VALUES.profile,
  contextWindow: SETTING_VALUES.contextWindow,
  summarizer: SETTING_VALUES.summarizer,
  summaryTimeoutMs: SETTING_VALUES.summaryTimeoutMs,
  recallTool: SETTING_VALUES.recallTool,
  tailTokens: OptionValues.tokens,
  trigger: OptionValues.oneOf("manual", "auto"),
};

const DEFAULT_CONTEXT_WINDOW = 200_000;

/**
 * Runs one micro pass on a session: plans it from the log, calls the summarizer (default offline), and
 * commits exactly one supersede event compare-and-set on the view version it planned from (when another
 * writer compacts first, the pass is planned again on the view that left). A summarizer failure, or a
 * defrag that did not shrink the marker, is recorded as compaction-failed; the view is then untouched.
 * Options it does not take, or a value of the wrong kind, are VALIDATION before anything is read.
 */
export async function microCompact(session: Session, options: MicroCompactOptions = {}): Promise<MicroOutcome> {
  checkOptions("microCompact", options, MICRO_COMPACT_OPTION_SHAPE);
  return microPass(session, options);
}

/**
 * microCompact without its check of the options: for the runtime's own callers (a micro batch, the
 * schedule after a turn, a replay), whose options may hold more (a batch's, a policy's).
 */
export async function microPass(session: Session, options: MicroCompactOptions): Promise<MicroOutcome> {
  const started = Date.now();
  const counter = await session.tokenCounter();
  const summarizer = options.summarizer ?? new OfflineSummarizer();
  return commitCompaction(session, async (state): Promise<Preparation<MicroOutcome>> => {
    const profile = resolveProfile(options, state.started);
    const contextWindow = options.contextWindow ?? state.started?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    const tailTokens = options.tailTokens ?? tailBudget(contextWindow, profile.tail);
    const plan = planMicro(microInputFor(state, microSettings(options), tailTokens));
    const base = { plan, reason: plan.reason, tokensBefore: state.liveTokens, tokensAfter: state.liveTokens };
    if (plan.kind === "none" || plan.kind === "skip") {
      return {
        done: { ...base, outcome: plan.kind === "none" ? "noop" : "skipped", durationMs: Date.now() - started },
      };
    }
    const pass: Pass = {
      state,
      summarizer,
      summaryTimeoutMs: options.summaryTimeoutMs ?? 120_000,
      recallTool: options.recallTool,
      counter,
      producer: { policy: "micro", profile: profile.name },
      trigger: options.trigger ?? "auto",
      basis: state.viewVersion, // read with the plan: the state may move during the awaits below
      started,
    };
    const step = plan.kind === "absorb" ? await absorb(pass, plan) : await defrag(pass, plan);
    return {
      ...step,
      committed: (events) => ({
        ...base,
        ...step.committed(events),
        tokensAfter: session.state.liveTokens,
        durationMs: Date.now() - started,
      }),
    };
  });
}

/** The micro settings among the options (everything that is not about the window, profile or summarizer). */
function microSettings(options: MicroCompactOptions): MicroSettings {
  const { enabled, everyNTurns, defragLimitTokens, maxAttempts } = options;
  return resolveMicroSettings({
    ...definedFields({ enabled }),
    ...definedFields({ everyNTurns }),
    ...definedFields({ defragLimitTokens }),
    ...definedFields({ maxAttempts }),
  });
}

/** One pass's collaborators, and the view version it planned from (the compare-and-set basis). */
interface Pass {
  state: Readonly<SessionState>;
  summarizer: Summarizer;
  summaryTimeoutMs: number;
  recallTool: string | undefined;
  counter: TokenCounter;
  producer: { policy: string; profile: string };
  trigger: "manual" | "auto";
  basis: number;
  started: number;
}

/** What absorb or defrag add to the outcome. */
type StepOutcome = Pick<MicroOutcome, "outcome" | "reason" | "exchangeTokens" | "rollingSummaryTokens" | "event">;

async function absorb(pass: Pass, plan: MicroAbsorbPlan): Promise<PreparedCompaction<StepOutcome>> {
  const exchangeTokens = plan.exchange.reduce((n, e) => n + e.tokens, 0);
  const exchange = plan.exchange.map((e) => e.message.id);
  const attempt = () => pass.state.micro.failedExchanges.filter((id) => id === exchange[0]).length + 1;
  const step = await prepareSummary(pass.state, {
    using: pass,
    span: { input: plan.exchange, previousSummary: plan.previousSummary, maxSummaryTokens: plan.maxSummaryTokens },
    failure: () => ({ mode: "micro", attempt: attempt(), targets: exchange }),
    replacement: (text) =>
      rollingSummaryReplacement(uuidv7(), text, countWith(pass), { at: plan.at, recallTool: pass.recallTool }),
    spec: (replacement, result) => specOf(pass, "micro", plan.targets, replacement, result),
  });
  return {
    ...step,
    committed: (events): StepOutcome => {
      const outcome = step.committed(events);
      if (outcome.status === "failed")
        return { outcome: "failed", reason: outcome.failure.detail, exchangeTokens, event: outcome.event };
      const rollingSummaryTokens = outcome.replacement.tokens;
      return { outcome: "absorbed", reason: plan.reason, exchangeTokens, rollingSummaryTokens, event: outcome.event };
    },
  };
}

async function defrag(pass: Pass, plan: MicroDefragPlan): Promise<PreparedCompaction<StepOutcome>> {
  const targets = [plan.marker.message.id];
  const step = await prepareSummary(pass.state, {
    using: pass,
    span: { input: [], previousSummary: plan.summary, maxSummaryTokens: plan.maxSummaryTokens },
    failure: () => ({ mode: "defrag", attempt: 1, targets }),
    replacement: (text) => rollingSummaryReplacement(uuidv7(), text, countWith(pass), { recallTool: pass.recallTool }),
    reject: (replacement) =>
      replacement.tokens >= plan.marker.tokens
        ? `defrag did not shrink the rolling summary (${plan.marker.tokens} → ${replacement.tokens} tokens)`
        : undefined,
    spec: (replacement, result) => specOf(pass, "defrag", targets, replacement, result),
  });
  return {
    ...step,
    committed: (events): StepOutcome => {
      const outcome = step.committed(events);
      const rollingSummaryTokens = outcome.replacement?.tokens;
      if (outcome.status === "failed") {
        const failed = { outcome: "failed" as const, reason: outcome.failure.detail, event: outcome.event };
        return rollingSummaryTokens === undefined ? failed : { ...failed, rollingSummaryTokens };
      }
      return {
        outcome: "defragged",
        reason: plan.reason,
        rollingSummaryTokens: outcome.replacement.tokens,
        event: outcome.event,
      };
    },
  };
}

/** A micro or defrag supersede, decided at commit on the view it planned from (the compare-and-set basis). */
function specOf(
  pass: Pass,
  mode: "micro" | "defrag",
  targets: string[],
  replacement: Replacement,
  result: SummaryResult,
): SupersedeSpec {
  const { summarizer } = pass;
  return {
    compactionId: uuidv7(),
    mode,
    trigger: pass.trigger,
    producer: { ...pass.producer, summarizerModel: summarizer.model, promptVersion: summarizer.promptVersion },
    targets,
    replacements: [replacement],
    basis: { viewVersion: pass.basis },
    durationMs: Date.now() - pass.started,
    aux: summaryAux(result),
  };
}

function countWith(pass: Pass): (message: Replacement["message"]) => number {
  return (message) => pass.counter.countMessage(message);
}

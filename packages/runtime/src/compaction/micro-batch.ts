import {
  batchCompactions,
  type CachePrices,
  checkOptions,
  definedFields,
  type LiveEntry,
  microBatchGate,
  type OptionShape,
  OptionValues,
  tailBudget,
} from "@palimpsest/core";
import type { Session } from "../runtime/session.ts";
import { REQUEST_TIMES_SCHEMA, type RequestTimes, wallClockTimes } from "./batch-policy-input.ts";
import { resolveBudget } from "./compaction-budget.ts";
import { MICRO_COMPACT_OPTION_SHAPE, type MicroCompactOptions, type MicroOutcome, microPass } from "./micro-compact.ts";
import { SETTING_VALUES } from "./setting-values.ts";

/** A micro batch's options: one pass's, the request times and the summarizer's prices for the gate. */
export interface MicroBatchOptions extends MicroCompactOptions {
  /** Default: the wall clock and the session's last completed turn (wallClockTimes), as a batch check's. */
  times?: RequestTimes;
  summarizerPrices?: CachePrices;
}

/** Every key of MicroBatchOptions with its value's schema (checkOptions). */
const MICRO_BATCH_OPTION_SHAPE: OptionShape<MicroBatchOptions> = {
  ...MICRO_COMPACT_OPTION_SHAPE,
  times: REQUEST_TIMES_SCHEMA,
  summarizerPrices: SETTING_VALUES.summarizerPrices,
};

/** One pass of a batch, with the view it was planned on. */
export interface MicroBatchPass {
  outcome: MicroOutcome;
  viewBefore: readonly LiveEntry[];
}

/** What a micro batch did: the gate's verdict and every pass it ran, in order. */
export interface MicroBatchOutcome {
  due: boolean;
  reason: string;
  passes: MicroBatchPass[];
}

/** Passes in one batch at most (each absorbs one exchange; the backlog is bounded by the window). */
const MAX_PASSES = 200;

/**
 * Micro-compaction batched by cost (microBatchGate): when the gate says a batch pays (cold cache, or the
 * backlog's reads outweigh one rewrite spread over its cycle), runs micro passes one after another before
 * the same request until one commits nothing, so the prompt is rewritten once for the whole backlog.
 */
export async function microBatch(session: Session, options: MicroBatchOptions = {}): Promise<MicroBatchOutcome> {
  checkOptions("microBatch", options, MICRO_BATCH_OPTION_SHAPE);
  return microBatchSession(session, options);
}

/**
 * microBatch without its check of the options: for the runtime's own callers (the schedule after a turn,
 * a replay), whose options may hold more (a policy's) and were checked where they came in.
 */
export async function microBatchSession(session: Session, options: MicroBatchOptions): Promise<MicroBatchOutcome> {
  const settings = resolveBudget(options, session.state);
  const state = session.state;
  const times = options.times ?? wallClockTimes(state);
  const gate = microBatchGate({
    view: state.live,
    liveTokens: state.liveTokens,
    contextWindow: settings.contextWindow,
    maxOutputTokens: settings.maxOutputTokens,
    profile: settings.profile,
    tailTokens: options.tailTokens ?? tailBudget(settings.contextWindow, settings.profile.tail),
    batchCompactions: batchCompactions(state),
    ...definedFields({
      nowMs: times.nowMs,
      previousRequestMs: times.previousRequestMs,
      summarizerPrices: options.summarizerPrices,
    }),
  });
  const passes: MicroBatchPass[] = [];
  if (!gate.due) return { due: false, reason: gate.reason, passes };
  for (let i = 0; i < MAX_PASSES; i++) {
    const viewBefore = [...session.state.live];
    const outcome = await microPass(session, options);
    passes.push({ outcome, viewBefore });
    if (outcome.outcome !== "absorbed" && outcome.outcome !== "defragged") break;
  }
  return { due: true, reason: gate.reason, passes };
}

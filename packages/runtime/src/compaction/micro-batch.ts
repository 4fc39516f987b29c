import {
  batchCompactions,
  type CachePrices,
  definedFields,
  type LiveEntry,
  microBatchGate,
  tailBudget,
} from "@palimpsest/core";
import type { Session } from "../runtime/session.ts";
import { type RequestTimes, wallClockTimes } from "./batch-policy-input.ts";
import { resolveBudget } from "./compaction-budget.ts";
import { type MicroCompactOptions, type MicroOutcome, microCompact } from "./micro-compact.ts";

/** A micro batch's options: one pass's, the request times and the summarizer's prices for the gate. */
export interface MicroBatchOptions extends MicroCompactOptions {
  /** Default: the wall clock and the session's last completed turn (wallClockTimes), as a batch check's. */
  times?: RequestTimes;
  summarizerPrices?: CachePrices;
}

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
    const outcome = await microCompact(session, options);
    passes.push({ outcome, viewBefore });
    if (outcome.outcome !== "absorbed" && outcome.outcome !== "defragged") break;
  }
  return { due: true, reason: gate.reason, passes };
}

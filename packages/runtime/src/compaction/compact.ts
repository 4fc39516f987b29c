import { checkOptions, type OptionShape, OptionValues } from "@palimpsest/core";
import type { Session } from "../runtime/session.ts";
import { batchPolicyInput, REQUEST_TIMES_SCHEMA, type RequestTimes } from "./batch-policy-input.ts";
import { COMPACTION_SETTINGS_SHAPE, type CompactionSettings, resolveCompaction } from "./compaction-settings.ts";
import { commitCompaction, type Preparation } from "./execute-compaction.ts";
import { type CompactOutcome, preparePlan } from "./execute-plan.ts";
import { growthRefusal } from "./growth-check.ts";

/** Options of one compaction run. */
export interface CompactOptions extends CompactionSettings {
  /** Run even below the threshold or while backing off. */
  force?: boolean;
  trigger?: "manual" | "auto";
  /** The request's time and the previous one's (default: now and the last completed turn). */
  times?: RequestTimes;
  /**
   * Write a compaction even when it does not shrink the view (default false: a manual one is refused with
   * `INVARIANT_VIOLATED`, rule `compaction-grows-view`; an automatic one is skipped; nothing is written).
   */
  allowGrowth?: boolean;
}

export type { CompactOutcome } from "./execute-plan.ts";

/** Every key of CompactOptions with its value's schema (checkOptions). */
export const COMPACT_OPTION_SHAPE: OptionShape<CompactOptions> = {
  ...COMPACTION_SETTINGS_SHAPE,
  force: OptionValues.flag,
  trigger: OptionValues.oneOf("manual", "auto"),
  times: REQUEST_TIMES_SCHEMA,
  allowGrowth: OptionValues.flag,
};

/**
 * Runs the session's compaction policy and commits exactly one supersede event, compare-and-set on the
 * view version the plan was made from. Messages appended while a summary is written survive verbatim
 * after it; a failed summary is recorded as a compaction-failed event and the view is untouched. When
 * another writer compacts first, the policy plans again on the view that left (and may find nothing to
 * do: `skipped`); a conflict never reaches the caller unless the contention timeout runs out. A
 * compaction that would not shrink the view is not written unless `allowGrowth` (see growthRefusal).
 * Options it does not take, or a value of the wrong kind, are VALIDATION before anything is read.
 */
export async function compact(session: Session, options: CompactOptions = {}): Promise<CompactOutcome> {
  checkOptions("compact", options, COMPACT_OPTION_SHAPE);
  return compactSession(session, options);
}

/**
 * compact without its check of the options: for the runtime's own callers, whose options may hold more
 * (pre-compaction's) and were checked where they came in.
 */
export async function compactSession(session: Session, options: CompactOptions): Promise<CompactOutcome> {
  const started = Date.now();
  const counter = await session.tokenCounter();
  return commitCompaction(session, async (state): Promise<Preparation<CompactOutcome>> => {
    const settings = resolveCompaction(options, state, (m) => counter.countMessage(m));
    const plan = settings.policy.plan(batchPolicyInput(state, settings, options.force === true, options.times));
    if (plan.kind === "none") return { done: { status: "skipped", reason: plan.reason } };
    const trigger = options.trigger ?? "manual";
    const prepared = await preparePlan(state, plan, { settings, counter, trigger, started });
    return growthRefusal(state, prepared, { trigger, allowGrowth: options.allowGrowth === true }) ?? prepared;
  });
}

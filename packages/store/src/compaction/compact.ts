import type { Session } from "../runtime/session.ts";
import { batchPolicyInput, type RequestTimes } from "./batch-policy-input.ts";
import { type CompactionSettings, resolveCompaction } from "./compaction-settings.ts";
import { commitCompaction, type Preparation } from "./execute-compaction.ts";
import { type CompactOutcome, preparePlan } from "./execute-plan.ts";

/** Options of one compaction run. */
export interface CompactOptions extends CompactionSettings {
  /** Run even below the threshold or while backing off. */
  force?: boolean;
  trigger?: "manual" | "auto";
  /** The request's time and the previous one's (default: now and the last completed turn). */
  times?: RequestTimes;
}

export type { CompactOutcome } from "./execute-plan.ts";

/**
 * Runs the session's compaction policy and commits exactly one supersede event, compare-and-set on the
 * view version the plan was made from. Messages appended while a summary is written survive verbatim
 * after it; a failed summary is recorded as a compaction-failed event and the view is untouched. When
 * another writer compacts first, the policy plans again on the view that left (and may find nothing to
 * do: `skipped`); a conflict never reaches the caller unless the contention timeout runs out.
 */
export async function compact(session: Session, options: CompactOptions = {}): Promise<CompactOutcome> {
  const started = Date.now();
  const counter = await session.tokenCounter();
  return commitCompaction(session, async (state): Promise<Preparation<CompactOutcome>> => {
    const settings = resolveCompaction(options, state, (m) => counter.countMessage(m));
    const plan = settings.policy.plan(batchPolicyInput(state, settings, options.force === true, options.times));
    if (plan.kind === "none") return { done: { status: "skipped", reason: plan.reason } };
    return preparePlan(state, plan, { settings, counter, trigger: options.trigger ?? "manual", started });
  });
}

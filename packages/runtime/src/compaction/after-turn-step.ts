import type { Session } from "../runtime/session.ts";
import type { CompactOutcome } from "./execute-plan.ts";
import type { MicroBatchOptions, MicroBatchPass } from "./micro-batch.ts";
import type { MicroSchedule } from "./micro-schedule.ts";

/** What one after-turn step runs: the batch check (if any), then micro passes as the policy schedules them. */
export interface AfterTurnPlan<O extends CompactOutcome> {
  /** The batch check: compact(), or pre-compaction's; absent when no batch policy runs after turns. */
  batch?: () => Promise<O>;
  /** Called with the batch check's outcome as soon as it is known, before any micro pass runs. */
  onBatch?: (outcome: O) => void;
  /** The micro passes: their options and how they run (microScheduleOf the policy); absent when micro-compaction is off. */
  micro?: { options: MicroBatchOptions; schedule: MicroSchedule };
}

/** What an after-turn step did: the batch check's outcome (when one ran) and every micro pass, in order. */
export interface AfterTurnOutcome<O extends CompactOutcome> {
  batch?: O;
  passes: MicroBatchPass[];
}

/**
 * The one step after a completed turn, shared by the runtime's after-turn hook and replay: the batch
 * check first; when it did not compact, the micro passes (when on) as the schedule runs them.
 */
export async function afterTurnStep<O extends CompactOutcome>(
  session: Session,
  plan: AfterTurnPlan<O>,
): Promise<AfterTurnOutcome<O>> {
  const batch = await plan.batch?.();
  if (batch !== undefined) {
    plan.onBatch?.(batch);
    if (batch.status === "compacted") return { batch, passes: [] };
  }
  const passes = plan.micro === undefined ? [] : await plan.micro.schedule(session, plan.micro.options);
  return batch === undefined ? { passes } : { batch, passes };
}

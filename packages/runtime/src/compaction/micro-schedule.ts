import type { Session } from "../runtime/session.ts";
import { type MicroBatchOptions, type MicroBatchPass, microBatchSession } from "./micro-batch.ts";
import { microPass } from "./micro-compact.ts";
import type { PolicyDefinition } from "./policies/policy-definition.ts";

/**
 * How micro passes run after a turn under a policy: the passes it ran on the session, in order, each with
 * the view it was planned on (none when it found nothing due).
 */
export type MicroSchedule = (session: Session, options: MicroBatchOptions) => Promise<MicroBatchPass[]>;

/** The default schedule: one micro pass after every turn. */
export const onePassSchedule: MicroSchedule = async (session, options) => {
  const viewBefore = [...session.state.live];
  return [{ outcome: await microPass(session, options), viewBefore }];
};

/** Micro passes batched by cost (microBatch): passes one after another when its gate says a batch pays, else none. */
export const costBatchedSchedule: MicroSchedule = async (session, options) =>
  (await microBatchSession(session, options)).passes;

/** The micro schedule of a batch policy (onePassSchedule when it names none, or when there is no batch policy). */
export function microScheduleOf(policy: PolicyDefinition | undefined): MicroSchedule {
  return policy?.microSchedule ?? onePassSchedule;
}

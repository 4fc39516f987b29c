import { NotFoundError, type StoredEvent, ValidationError } from "@palimpsest/core";
import { viewAsOf } from "@palimpsest/projections";
import type { Palimpsest, Session } from "@palimpsest/store";

/** Where a fork starts: after the parent's event `atSeq`, or after its first `atTurn` user turns. */
export type ForkPoint = { atSeq: number } | { atTurn: number };

/**
 * Starts a new session holding `parent`'s view as it stood at `at` (messages copied with their ids and
 * metadata), so writes to either never show in the other. `atTurn: N` cuts just before the (N+1)-th
 * user message (0: an empty fork). The copy is one keyed append: a retry copies nothing twice.
 */
export async function forkSession(runtime: Palimpsest, parent: Session, at: ForkPoint): Promise<Session> {
  const events = await runtime.store.readStream(parent.id);
  const seq = cutSeq(events, at);
  const { view } = viewAsOf(parent.id, events, { seq });
  const { parent: _link, source: _source, ...started } = parent.state.started ?? { encoding: "o200k_base" };
  const child = await runtime.startSession(started);
  if (view.messages.length > 0) {
    await child.append(view.messages, { idempotencyKey: `fork:${parent.id}:${seq}` });
  }
  return child;
}

/** The last parent seq a fork at `at` includes. */
function cutSeq(events: readonly StoredEvent[], at: ForkPoint): number {
  const lastSeq = events.at(-1)?.seq ?? 0;
  if ("atSeq" in at) {
    if (!Number.isInteger(at.atSeq) || at.atSeq < 0) throw invalid("atSeq");
    if (at.atSeq > lastSeq) throw new NotFoundError("event", `seq ${at.atSeq} (the session's last is ${lastSeq})`);
    return at.atSeq;
  }
  if (!Number.isInteger(at.atTurn) || at.atTurn < 0) throw invalid("atTurn");
  let users = 0;
  const next = events.find(
    (e) => e.type === "message.appended" && e.data.message.role === "user" && ++users === at.atTurn + 1,
  );
  if (next !== undefined) return next.seq - 1;
  if (users < at.atTurn) throw new NotFoundError("event", `turn ${at.atTurn} (the session has ${users})`);
  return lastSeq;
}

function invalid(field: string): ValidationError {
  return new ValidationError(`fork: ${field} must be a whole number ≥ 0`, [`${field}: expected a whole number ≥ 0`], {
    path: field,
  });
}

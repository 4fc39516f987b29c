import {
  type EventStore,
  type InvariantRule,
  InvariantViolation,
  isPalimpsestError,
  type SessionStarted,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { MessageInput } from "./message-input.ts";
import type { Session } from "./session.ts";

/** Options of a hand-off. */
export interface HandOffOptions {
  toSessionId?: string;
  reason?: string;
  /** Copy the active view into the successor (default true), so it starts where this one stands. */
  carryView?: boolean;
}

/** What a hand-off needs from the runtime: the catalogue, loading sessions and starting the successor. */
export interface HandOffRuntime {
  readonly store: Pick<EventStore, "getSession">;
  resume(sessionId: string): Promise<Session>;
  startSession(options: Partial<SessionStarted> & { sessionId: string }): Promise<Session>;
}

/** The one hand-off path, of direct and queued hand-offs: seal, then start and fill the successor. */
export async function handOffSession(
  runtime: HandOffRuntime,
  from: Session,
  options: HandOffOptions,
): Promise<Session> {
  const toSessionId = options.toSessionId ?? uuidv7();
  await existingSuccessor(runtime, from.id, toSessionId); // refuses an unrelated session before sealing
  await seal(from, toSessionId, options.reason);
  // Sealed: `from.state` is the source's final state, so the copy holds every message it ever took.
  const successor = await successorOf(runtime, from, toSessionId);
  if (options.carryView !== false && successor.state.live.length === 0 && from.state.live.length > 0) {
    // Keyed, so a second process carrying the same view replays the first one's append instead of failing.
    await successor.append(
      from.state.live.map((e) => e.message as MessageInput),
      { idempotencyKey: `handoff:${from.id}` },
    );
  }
  return successor;
}

/**
 * Seals `from` to `toSessionId`, or finds it sealed there already (by an earlier attempt or a
 * concurrent completer); `session-handed-off` when it was sealed to another successor. The seal is
 * decided on the state it is appended after (a moved stream is re-read and decided again), and nothing
 * is copied before it lands, so a message written before the seal is always in the sealed state.
 */
async function seal(from: Session, toSessionId: string, reason: string | undefined): Promise<void> {
  for (;;) {
    await from.refresh();
    const sealedTo = from.state.handedOffTo;
    if (sealedTo === toSessionId) return;
    if (sealedTo !== undefined) {
      throw new InvariantViolation("session-handed-off", `session ${from.id} was handed off to ${sealedTo}`, {
        sessionId: from.id,
        ids: [sealedTo],
      });
    }
    try {
      await from.markHandedOff(toSessionId, reason);
      return;
    } catch (error) {
      // Sealed by another process between our read and our append: read again and decide.
      if (!isInvariant(error, "session-handed-off")) throw error;
    }
  }
}

/** The successor of a hand-off: started from the source's settings and linked back, or resumed if it exists. */
async function successorOf(runtime: HandOffRuntime, from: Session, toSessionId: string): Promise<Session> {
  const existing = await existingSuccessor(runtime, from.id, toSessionId);
  if (existing !== undefined) return existing;
  try {
    return await runtime.startSession({
      ...from.state.started,
      sessionId: toSessionId,
      parent: { sessionId: from.id, relation: "handoff" },
    });
  } catch (error) {
    // Another process finishing the same hand-off started it first.
    if (!isInvariant(error, "session-already-started")) throw error;
    const started = await existingSuccessor(runtime, from.id, toSessionId);
    if (started === undefined) throw error;
    return started;
  }
}

/** The session `toSessionId` if it exists, linked back to `fromId` by a hand-off; else an error. */
async function existingSuccessor(
  runtime: HandOffRuntime,
  fromId: string,
  toSessionId: string,
): Promise<Session | undefined> {
  if ((await runtime.store.getSession(toSessionId)) === undefined) return undefined;
  const existing = await runtime.resume(toSessionId);
  const parent = existing.state.started?.parent;
  if (parent?.sessionId !== fromId || parent.relation !== "handoff") {
    throw new InvariantViolation(
      "session-already-started",
      `session ${toSessionId} already exists and is not a hand-off successor of ${fromId}`,
      { sessionId: toSessionId, ids: [fromId] },
    );
  }
  return existing;
}

/** Whether `error` is an InvariantViolation of `rule`. */
function isInvariant(error: unknown, rule: InvariantRule): boolean {
  return isPalimpsestError(error, "INVARIANT_VIOLATED") && (error.details as { rule?: string }).rule === rule;
}

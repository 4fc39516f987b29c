import {
  checkId,
  checkOptions,
  definedFields,
  type EventStore,
  type InvariantRule,
  InvariantViolation,
  isEmptyMessage,
  isPalimpsestError,
  type OptionShape,
  OptionValues,
  type SessionStarted,
  type SessionState,
  ValidationError,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { MessageInput } from "../runtime/message-input.ts";
import type { Session } from "../runtime/session.ts";

/** Options of a hand-off. */
export interface HandOffOptions {
  toSessionId?: string;
  reason?: string;
  /** Copy the active view into the successor (default true), so it starts where this one stands. */
  carryView?: boolean;
  /**
   * Carry the view provider-neutral (default false), for a successor another vendor's model continues:
   * each message loses its opaque `reasoning` (signed thinking blocks no other provider accepts) and its
   * `metadata` (provider ids, source items); the seal records how many lost each (`dropped`).
   */
  portable?: boolean;
}

/** Every key of HandOffOptions with its value's schema (checkOptions). */
const OPTION_SHAPE: OptionShape<HandOffOptions> = {
  toSessionId: OptionValues.text,
  reason: OptionValues.text,
  carryView: OptionValues.flag,
  portable: OptionValues.flag,
};

/** Refuses hand-off options it does not take (VALIDATION at the key), before anything is read. */
export function checkHandOffOptions(options: HandOffOptions): void {
  checkOptions("handOff", options, OPTION_SHAPE);
}

/**
 * What starting a session from another one's view needs (a hand-off's successor, a fork): the catalogue,
 * loading sessions and starting one with messages. Not HandoffRuntime (queued-handoffs.ts), the queue's needs.
 */
export interface SuccessorRuntime {
  readonly store: Pick<EventStore, "getSession" | "readStream" | "keyedBatch">;
  resume(sessionId: string): Promise<Session>;
  /** Starts a session with `messages` in the same append as its start (see Session.startWith). */
  startSessionWith(
    options: Partial<SessionStarted> & { sessionId: string },
    messages: readonly MessageInput[],
    idempotencyKey: string,
  ): Promise<Session>;
}

/** The one hand-off path, of direct and queued hand-offs: seal, then start the successor with its view. */
export async function handOffSession(
  runtime: SuccessorRuntime,
  from: Session,
  options: HandOffOptions,
): Promise<Session> {
  const toSessionId = options.toSessionId ?? uuidv7();
  await checkSuccessorId(runtime, from.id, toSessionId); // refuses a successor it could never start, before sealing
  const carry: Carry = options.carryView === false ? "nothing" : options.portable === true ? "portable" : "view";
  await seal(from, toSessionId, options.reason, carry === "portable");
  // Sealed: `from.state` is the source's final state, so the copy holds every message it ever took.
  return successorOf(runtime, from, toSessionId, carry);
}

/** What a successor carries of its predecessor's view. */
type Carry = "view" | "portable" | "nothing";

/**
 * The messages a successor starts with: the view, or nothing; portable, without reasoning and metadata
 * (and without the messages that held only reasoning).
 */
function carriedView(from: Session, carry: Carry): MessageInput[] {
  if (carry === "nothing") return [];
  const messages = from.state.live.map((e) => e.message);
  if (carry === "view") return messages;
  // A message that held nothing but reasoning says nothing without it: it is left out.
  return messages
    .map(({ reasoning: _reasoning, metadata: _metadata, ...neutral }) => neutral)
    .filter((m) => !isEmptyMessage(m));
}

/** How many messages of the view a portable hand-off strips of their reasoning and of their metadata. */
function portableDrops(state: Readonly<SessionState>): { reasoning: number; metadata: number } {
  let reasoning = 0;
  let metadata = 0;
  for (const { message } of state.live) {
    if (message.reasoning !== undefined) reasoning++;
    if (message.metadata !== undefined) metadata++;
  }
  return { reasoning, metadata };
}

/**
 * Refuses a successor id that a hand-off of `fromId` could never start: empty or the source's own
 * (ValidationError), or an existing session not linked back to `fromId` by a hand-off (`session-already-started`).
 */
export async function checkSuccessorId(runtime: SuccessorRuntime, fromId: string, toSessionId: string): Promise<void> {
  checkId(toSessionId, "toSessionId");
  if (toSessionId === fromId) {
    throw new ValidationError(`session ${fromId} cannot be handed off to itself`, [`toSessionId is ${fromId}`]);
  }
  await existingSuccessor(runtime, fromId, toSessionId);
}

/** Whether `error` is checkSuccessorId's refusal (or the seal's own validation of the id). */
export function isSuccessorRefused(error: unknown): boolean {
  return isPalimpsestError(error, "VALIDATION") || isInvariant(error, "session-already-started");
}

/**
 * Seals `from` to `toSessionId`, or finds it sealed there already (by an earlier attempt or a
 * concurrent completer); `session-handed-off` when it was sealed to another successor. The seal is
 * decided on the state it is appended after (the session's write loop re-reads and decides again when
 * another writer moved it), and nothing is copied before it lands, so a message written before the seal
 * is always in the sealed state.
 */
async function seal(from: Session, toSessionId: string, reason: string | undefined, portable: boolean): Promise<void> {
  await from.refresh();
  await from.write((state) => {
    const sealedTo = state.handedOffTo;
    if (sealedTo === toSessionId) return undefined;
    if (sealedTo !== undefined) {
      throw new InvariantViolation("session-handed-off", `session ${from.id} was handed off to ${sealedTo}`, {
        sessionId: from.id,
        ids: [sealedTo],
      });
    }
    // Decided on the state the seal follows, which is final: the counts are exactly what the copy drops.
    return {
      kind: "hand-off",
      toSessionId,
      ...definedFields({ reason }),
      ...(portable ? { dropped: portableDrops(state) } : {}),
    };
  });
}

/**
 * The successor of a hand-off, linked back to `from`, holding the sealed view as `carry` says:
 * started with the view in the same append as its start, so it never exists without it; or resumed.
 */
async function successorOf(
  runtime: SuccessorRuntime,
  from: Session,
  toSessionId: string,
  carry: Carry,
): Promise<Session> {
  const key = `handoff:${from.id}`; // the same in every process finishing this hand-off
  const carried = carriedView(from, carry);
  let successor = await existingSuccessor(runtime, from.id, toSessionId);
  if (successor === undefined) {
    try {
      const link = { sessionId: from.id, relation: "handoff" as const };
      return await runtime.startSessionWith(
        { ...from.state.started, sessionId: toSessionId, parent: link },
        carried,
        key,
      );
    } catch (error) {
      // Another process finishing the same hand-off started it first, with its view in the same append.
      successor = await existingSuccessor(runtime, from.id, toSessionId);
      if (successor === undefined) throw error;
    }
  }
  // Started without the view (by an earlier version of this path, or by hand): carried now, once, decided
  // by whether the copy's key was used, never by what the successor holds (its agent may have written).
  if (carried.length > 0 && !(await keyUsed(runtime, toSessionId, key))) {
    await successor.append(carried, { idempotencyKey: key });
  }
  return successor;
}

/** Whether an append with `key` reached `sessionId`'s log. */
async function keyUsed(runtime: SuccessorRuntime, sessionId: string, key: string): Promise<boolean> {
  return (await runtime.store.keyedBatch(sessionId, key)) !== undefined;
}

/** The session `toSessionId` if it exists, linked back to `fromId` by a hand-off; else an error. */
async function existingSuccessor(
  runtime: SuccessorRuntime,
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

import {
  checkId,
  checkOptionKeys,
  foldEvents,
  InvariantViolation,
  initialState,
  NotFoundError,
  type SessionStarted,
  type StoredEvent,
  sessionErased,
  ValidationError,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import type { SuccessorRuntime } from "./hand-off-session.ts";

/** Where a fork branches off its parent: exactly one of `atSeq` and `atTurn`, or neither (the whole log). */
export interface ForkOptions {
  /** The parent's log up to and including this seq. */
  atSeq?: number;
  /**
   * After this many turns: the log up to just before the parent's (N+1)-th user message (0: before the
   * first one). To edit user message N, fork at turn N - 1 and append the new text.
   */
  atTurn?: number;
  /** The fork's id (default a new UUIDv7); forking again to it returns it, when it is this same fork. */
  toSessionId?: string;
}

const OPTION_KEYS: { [K in keyof Required<ForkOptions>]: true } = { atSeq: true, atTurn: true, toSessionId: true };

/**
 * Starts a fork of `parentId`: a new session whose log begins with the parent's view as it stood at the
 * fork point, in the same append as its start, linked back by `parent: { relation: "fork", atSeq }`.
 * The view is copied, messages with their ids and metadata unchanged (summaries a compaction placed
 * before the fork point come as they were shown). From then on the two are independent: writes to
 * either never show in the other, each compacts and is erased on its own.
 */
export async function forkSession(runtime: SuccessorRuntime, parentId: string, options: ForkOptions): Promise<Session> {
  checkId(parentId, "sessionId");
  checkOptionKeys("fork", options, OPTION_KEYS);
  const toSessionId =
    options.toSessionId === undefined ? uuidv7() : checkId(options.toSessionId, "toSessionId", "session");
  const log = await runtime.store.readStream(parentId);
  const started = log[0]?.type === "session.started" ? (log[0].data as SessionStarted) : undefined;
  if (started === undefined) throw new NotFoundError("session", parentId);
  if (log.some((e) => e.type === "session.erased")) throw sessionErased(parentId, "it cannot be forked");
  const atSeq = forkPoint(log, options);
  const state = foldEvents(initialState(parentId), log.slice(0, atSeq));
  const link = { sessionId: parentId, relation: "fork" as const, atSeq };
  const existing = await existingFork(runtime, toSessionId, link);
  if (existing !== undefined) return existing;
  const { parent: _grandparent, ...start } = started;
  try {
    return await runtime.startSessionWith(
      { ...start, sessionId: toSessionId, parent: link },
      state.live.map((e) => e.message),
      `fork:${parentId}:${atSeq}`,
    );
  } catch (error) {
    // Another process started the same fork first (its view in the same append): that one is it.
    const raced = await existingFork(runtime, toSessionId, link);
    if (raced === undefined) throw error;
    return raced;
  }
}

/** The seq the fork copies the log up to, from its options; ValidationError when it is not in the log. */
function forkPoint(log: readonly StoredEvent[], options: ForkOptions): number {
  const { atSeq, atTurn } = options;
  if (atSeq !== undefined && atTurn !== undefined) {
    throw new ValidationError("fork takes atSeq or atTurn, not both", ["atSeq, atTurn: give one"], { path: "atSeq" });
  }
  const last = log.length;
  if (atSeq !== undefined) {
    if (!Number.isInteger(atSeq) || atSeq < 1 || atSeq > last) {
      throw new ValidationError(`atSeq must be a seq of the session's log, 1 to ${last}`, [`atSeq: ${atSeq}`], {
        path: "atSeq",
      });
    }
    return atSeq;
  }
  if (atTurn === undefined) return last;
  const userSeqs = log.filter((e) => e.type === "message.appended" && e.data.message.role === "user").map((e) => e.seq);
  if (!Number.isInteger(atTurn) || atTurn < 0 || atTurn > userSeqs.length) {
    throw new ValidationError(
      `atTurn must be a turn of the session, 0 to ${userSeqs.length}`,
      [`atTurn: ${atTurn} (the session has ${userSeqs.length} user messages)`],
      { path: "atTurn" },
    );
  }
  const next = userSeqs[atTurn];
  return next === undefined ? last : next - 1;
}

/** The session `toSessionId` when it exists as this very fork; session-already-started when it is anything else. */
async function existingFork(
  runtime: SuccessorRuntime,
  toSessionId: string,
  link: { sessionId: string; atSeq: number },
): Promise<Session | undefined> {
  if ((await runtime.store.getSession(toSessionId)) === undefined) return undefined;
  const existing = await runtime.resume(toSessionId);
  const parent = existing.state.started?.parent;
  if (parent?.relation !== "fork" || parent.sessionId !== link.sessionId || parent.atSeq !== link.atSeq) {
    throw new InvariantViolation(
      "session-already-started",
      `session ${toSessionId} already exists and is not the fork of ${link.sessionId} at seq ${link.atSeq}`,
      { sessionId: toSessionId, ids: [link.sessionId] },
    );
  }
  return existing;
}

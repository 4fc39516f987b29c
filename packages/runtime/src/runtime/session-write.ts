import type { CompactionFailed, SessionHandedOff, SessionState, SupersedeSpec, Usage } from "@palimpsest/core";
import type { MessageInput } from "./message-input.ts";
import type { RewriteRequest } from "./rewrite.ts";

/**
 * One write, decided on a session's current state by a WritePlan: an append (as `Session.append`), a
 * rewrite (as `Session.rewrite`, without `expectedSeq`: the plan already saw the log it is decided on), a
 * compaction (its spec; basis, stats and tokens are measured on the state it commits to), a failed
 * compaction's record, the seal of a hand-off, or a batch of appends and rewrites committed as one. An
 * append's `completeTurn` completes its turn in the same write (as `Session.append`'s option); a write
 * that completed a turn runs the after-turn check once it is committed.
 */
export type SessionWrite =
  | {
      kind: "append";
      messages: readonly MessageInput[];
      turnId?: string;
      idempotencyKey?: string;
      completeTurn?: true | Usage;
    }
  | { kind: "rewrite"; rewrite: Omit<RewriteRequest, "expectedSeq"> }
  | { kind: "supersede"; spec: SupersedeSpec }
  | { kind: "compaction-failed"; data: CompactionFailed }
  | { kind: "hand-off"; toSessionId: string; reason?: string; dropped?: SessionHandedOff["dropped"] }
  | { kind: "batch"; writes: readonly BatchedWrite[] };

/**
 * One write of a `batch`: several appends and rewrites committed as one append, all of it or nothing,
 * each decided on the view the ones before it leave. Each is made from the state the plan was given, so a
 * rewrite after another names its basis (`viewVersion`: the state's plus the rewrites before it); a batch
 * takes no idempotency key.
 */
export type BatchedWrite =
  | Omit<Extract<SessionWrite, { kind: "append" }>, "idempotencyKey">
  | { kind: "rewrite"; rewrite: Omit<RewriteRequest, "expectedSeq" | "idempotencyKey"> };

/**
 * Decides what to write from the session's current state (read-only: never mutate it), or undefined when
 * there is nothing to write. Called again, on the state re-read, each time another writer moved the session
 * first. An error it throws reaches the caller, unless the log had moved past the state it was given
 * (then it is asked again on the new state, as a refusal of the decider would be).
 */
export type WritePlan = (state: Readonly<SessionState>) => SessionWrite | undefined | Promise<SessionWrite | undefined>;

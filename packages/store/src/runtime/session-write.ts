import type { CompactionFailed, SessionHandedOff, SessionState, SupersedeSpec } from "@palimpsest/core";
import type { MessageInput } from "./message-input.ts";
import type { RewriteRequest } from "./rewrite.ts";

/**
 * One write, decided on a session's current state by a WritePlan: an append (as `Session.append`), a
 * rewrite (as `Session.rewrite`, without `expectedSeq`: the plan already saw the log it is decided on), a
 * compaction (its spec; basis, stats and tokens are measured on the state it commits to), a failed
 * compaction's record, or the seal of a hand-off.
 */
export type SessionWrite =
  | { kind: "append"; messages: readonly MessageInput[]; turnId?: string; idempotencyKey?: string }
  | { kind: "rewrite"; rewrite: Omit<RewriteRequest, "expectedSeq"> }
  | { kind: "supersede"; spec: SupersedeSpec }
  | { kind: "compaction-failed"; data: CompactionFailed }
  | { kind: "hand-off"; toSessionId: string; reason?: string; dropped?: SessionHandedOff["dropped"] };

/**
 * Decides what to write from the session's current state (read-only: never mutate it), or undefined when
 * there is nothing to write. Called again, on the state re-read, each time another writer moved the session
 * first; an error it throws (a precondition of the caller's that no longer holds) reaches the caller.
 */
export type WritePlan = (state: Readonly<SessionState>) => SessionWrite | undefined | Promise<SessionWrite | undefined>;

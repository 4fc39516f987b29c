import {
  type AppendResult,
  ConcurrencyConflict,
  IdempotencyMismatch,
  InvariantViolation,
  type StoredEvent,
  sessionErased,
} from "@palimpsest/core";
import type { PreparedBatch } from "./append-batch.ts";

/** A value, or a promise of it: a store in memory answers at once, a database later. */
type Awaitable<T> = T | Promise<T>;

/** The batch an idempotency key wrote: the hash a retry must match, and where it sits. */
export interface UsedKey {
  contentHash: string;
  firstSeq: number;
  lastSeq: number;
}

/** What deciding a refusal reads about the batch's session; each is asked only when the one before did not decide. */
export interface RefusalReads {
  /** Whether the session was erased. */
  erased(): Awaitable<boolean>;
  /** The batch the idempotency key wrote on the session, if it was used there. */
  usedKey(idempotencyKey: string): Awaitable<UsedKey | undefined>;
  /** The session's stream and view versions; undefined for a session without events. */
  versions(): Awaitable<{ version: number; viewVersion: number } | undefined>;
  /** The session's events `fromSeq..toSeq`. */
  readRange(fromSeq: number, toSeq: number): Awaitable<StoredEvent[]>;
  /** Which of `keys` the session's log holds. */
  knownKeys(keys: readonly string[]): Awaitable<Set<string>>;
}

/**
 * What stands in the way of a batch, in the port's order of precedence: an erased session
 * (InvariantViolation `session-erased`: its writes are refused, retries included), a used idempotency key
 * (returns the original result, or throws IdempotencyMismatch), then the stream version, then the view
 * version (ConcurrencyConflict with the actual value), then the fresh keys (InvariantViolation
 * `log-key-taken` naming the ones the log holds). Undefined when nothing does: the batch may be written.
 * Read under the session's lock this decides an append (the memory store); read after a refused write,
 * it explains the refusal (explainRejection).
 */
export async function refusalOf(batch: PreparedBatch, reads: RefusalReads): Promise<AppendResult | undefined> {
  const { sessionId, idempotencyKey } = batch;
  if (await reads.erased()) throw sessionErased(sessionId);
  if (idempotencyKey !== null) {
    const used = await reads.usedKey(idempotencyKey);
    if (used !== undefined) {
      if (used.contentHash !== batch.contentHash) throw new IdempotencyMismatch(sessionId, idempotencyKey);
      const events = await reads.readRange(used.firstSeq, used.lastSeq);
      return { nextExpectedVersion: used.lastSeq, events, replayed: true };
    }
  }
  const session = await reads.versions();
  const actual = session?.version ?? 0;
  const expected = batch.expectedVersion;
  if (expected !== "any" && actual !== (expected === "no-stream" ? 0 : expected)) {
    throw new ConcurrencyConflict(sessionId, "stream-version", expected, actual);
  }
  const view = session?.viewVersion ?? 0;
  if (batch.expectedViewVersion !== undefined && view !== batch.expectedViewVersion) {
    throw new ConcurrencyConflict(sessionId, "view-version", batch.expectedViewVersion, view);
  }
  if (batch.freshKeys.length > 0 && session !== undefined) {
    const taken = await reads.knownKeys(batch.freshKeys);
    if (taken.size > 0) {
      const ids = [...taken];
      throw new InvariantViolation("log-key-taken", `the log already holds ${ids.join(", ")}`, { sessionId, ids });
    }
  }
  return undefined;
}

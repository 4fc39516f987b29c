import {
  type AppendResult,
  ConcurrencyConflict,
  IdempotencyMismatch,
  InvariantViolation,
  type StoredEvent,
} from "@palimpsest/core";
import type { Kysely } from "kysely";
import type { PreparedBatch } from "./append-batch.ts";
import type { StoreDatabase } from "./database-schema.ts";

/** Reads seqs `fromSeq..toSeq` of one session (the store's readStream). */
type ReadRange = (sessionId: string, fromSeq: number, toSeq: number) => Promise<StoredEvent[]>;

/** Which of the keys one session's log holds (the store's knownKeys). */
type KnownKeys = (sessionId: string, keys: readonly string[]) => Promise<Set<string>>;

/**
 * Finds out why a batch was not written, in the port's order of precedence: an erased session
 * (InvariantViolation `session-erased`: its writes are refused, retries included), a used idempotency key
 * (returns the original result, or throws IdempotencyMismatch), then the stream version, then the view
 * version (ConcurrencyConflict with the actual value), then the fresh keys (InvariantViolation
 * `log-key-taken` naming the ones the log holds). Each of these, once true, stays true (or the session is
 * erased meanwhile, which is checked first), so one of them explains the refusal; should none hold any
 * more (an erasure committing between two of these reads), it is a stream-version ConcurrencyConflict:
 * the caller reads again and finds out.
 */
export async function explainRejection(
  db: Kysely<StoreDatabase>,
  batch: PreparedBatch,
  readRange: ReadRange,
  knownKeys: KnownKeys,
): Promise<AppendResult> {
  const { sessionId, idempotencyKey } = batch;
  const erased = await db
    .selectFrom("sessions")
    .select("erased_at")
    .where("session_id", "=", sessionId)
    .where("erased_at", "is not", null)
    .executeTakeFirst();
  if (erased !== undefined) {
    throw new InvariantViolation("session-erased", `session ${sessionId} was erased; it takes no more writes`, {
      sessionId,
    });
  }
  if (idempotencyKey !== null) {
    const used = await db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where("session_id", "=", sessionId)
      .where("idempotency_key", "=", idempotencyKey)
      .executeTakeFirst();
    if (used !== undefined) {
      if (used.content_hash !== batch.contentHash) throw new IdempotencyMismatch(sessionId, idempotencyKey);
      const events = await readRange(sessionId, used.first_seq, used.last_seq);
      return { nextExpectedVersion: used.last_seq, events, replayed: true };
    }
  }
  const session = await db
    .selectFrom("sessions")
    .select(["version", "view_version"])
    .where("session_id", "=", sessionId)
    .executeTakeFirst();
  const actual = session?.version ?? 0;
  const expected = batch.expectedVersion;
  if (expected !== "any" && actual !== (expected === "no-stream" ? 0 : expected)) {
    throw new ConcurrencyConflict(sessionId, "stream-version", expected, actual);
  }
  const view = session?.view_version ?? 0;
  if (batch.expectedViewVersion !== undefined && view !== batch.expectedViewVersion) {
    throw new ConcurrencyConflict(sessionId, "view-version", batch.expectedViewVersion, view);
  }
  if (batch.freshKeys.length > 0 && session !== undefined) {
    const taken = await knownKeys(sessionId, batch.freshKeys);
    if (taken.size > 0) {
      const ids = [...taken];
      throw new InvariantViolation("log-key-taken", `the log already holds ${ids.join(", ")}`, { sessionId, ids });
    }
  }
  throw new ConcurrencyConflict(sessionId, "stream-version", expected, actual);
}

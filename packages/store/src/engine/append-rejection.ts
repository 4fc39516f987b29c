import { type AppendResult, ConcurrencyConflict, type StoredEvent } from "@palimpsest/core";
import type { Kysely } from "kysely";
import type { PreparedBatch } from "./append-batch.ts";
import { type RefusalReads, refusalOf } from "./append-refusal.ts";
import type { StoreDatabase } from "./database-schema.ts";

/** Reads seqs `fromSeq..toSeq` of one session (the store's readStream). */
type ReadRange = (sessionId: string, fromSeq: number, toSeq: number) => Promise<StoredEvent[]>;

/** Which of the keys one session's log holds (the store's knownKeys). */
type KnownKeys = (sessionId: string, keys: readonly string[]) => Promise<Set<string>>;

/**
 * Finds out why a batch was not written (see refusalOf for the order of precedence). Each reason, once
 * true, stays true (or the session is erased meanwhile, which is checked first), so one of them explains
 * the refusal; should none hold any more (an erasure committing between two of these reads), it is a
 * stream-version ConcurrencyConflict: the caller reads again and finds out.
 */
export async function explainRejection(
  db: Kysely<StoreDatabase>,
  batch: PreparedBatch,
  readRange: ReadRange,
  knownKeys: KnownKeys,
): Promise<AppendResult> {
  const { sessionId } = batch;
  const reads: RefusalReads = {
    erased: async () =>
      (await db
        .selectFrom("sessions")
        .select("erased_at")
        .where("session_id", "=", sessionId)
        .where("erased_at", "is not", null)
        .executeTakeFirst()) !== undefined,
    usedKey: async (idempotencyKey) => {
      const used = await db
        .selectFrom("idempotency_keys")
        .selectAll()
        .where("session_id", "=", sessionId)
        .where("idempotency_key", "=", idempotencyKey)
        .executeTakeFirst();
      return used && { contentHash: used.content_hash, firstSeq: used.first_seq, lastSeq: used.last_seq };
    },
    versions: async () => {
      const session = await db
        .selectFrom("sessions")
        .select(["version", "view_version"])
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      return session && { version: session.version, viewVersion: session.view_version };
    },
    readRange: (fromSeq, toSeq) => readRange(sessionId, fromSeq, toSeq),
    knownKeys: (keys) => knownKeys(sessionId, keys),
  };
  const replayed = await refusalOf(batch, reads);
  if (replayed !== undefined) return replayed;
  const actual = (await reads.versions())?.version ?? 0;
  throw new ConcurrencyConflict(sessionId, "stream-version", batch.expectedVersion, actual);
}

import type BetterSqlite3 from "better-sqlite3";
import { type Compilable, Kysely, SqliteDialect } from "kysely";
import { claimVersionQuery, type PreparedBatch } from "./append-batch.ts";
import type { StoreDatabase } from "./database-schema.ts";
import type { EngineAdapter, WrittenRow } from "./engine-adapter.ts";

/** Rows per INSERT statement, well under SQLite's bound-parameter limit. */
const ROWS_PER_INSERT = 500;

/** Thrown inside the write transaction to roll it back when the batch cannot apply. */
class Rejected extends Error {}

/**
 * The SQLite adapter. An append is one `BEGIN IMMEDIATE` transaction, taking the write lock up front
 * (waiting up to busy_timeout for other processes), run synchronously from begin to commit: no other
 * connection of this process can interleave and wait on a lock this thread holds. With one writer at a
 * time, commit order is position order, so global readers need no barrier.
 */
export function sqliteAdapter(database: BetterSqlite3.Database): EngineAdapter {
  const db = new Kysely<StoreDatabase>({ dialect: new SqliteDialect({ database }) });
  const all = <R>(query: Compilable<R>): R[] => {
    const compiled = query.compile();
    return database.prepare(compiled.sql).all(...compiled.parameters) as R[];
  };
  const write = database.transaction((batch: PreparedBatch): WrittenRow[] => {
    const claim = claimVersionQuery(db, batch);
    const claimed = claim === undefined ? undefined : all(claim)[0];
    if (claimed === undefined) throw new Rejected();
    const firstSeq = claimed.version - batch.events.length + 1;
    if (batch.idempotencyKey !== null) {
      const key = db
        .insertInto("idempotency_keys")
        .values({
          session_id: batch.sessionId,
          idempotency_key: batch.idempotencyKey,
          content_hash: batch.contentHash,
          first_seq: firstSeq,
          last_seq: claimed.version,
        })
        .onConflict((oc) => oc.doNothing())
        .returning("idempotency_key");
      if (all(key).length === 0) throw new Rejected();
    }
    const rows = batch.events.map((e, i) => ({
      event_id: e.eventId,
      session_id: batch.sessionId,
      seq: firstSeq + i,
      type: e.type,
      schema_version: e.schemaVersion,
      occurred_at: batch.occurredAt,
      causation_id: batch.causationId,
      correlation_id: batch.correlationId,
      idempotency_key: batch.idempotencyKey,
      content_hash: e.contentHash,
      tenant_id: batch.tenantId,
      data: e.data,
    }));
    const written: WrittenRow[] = [];
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + ROWS_PER_INSERT);
      written.push(...all(db.insertInto("events").values(chunk).returning(["position", "seq", "event_id"])));
    }
    return written;
  });
  return {
    engine: "sqlite",
    db,
    visibilityBarrier: undefined,
    async writeBatch(batch) {
      try {
        return write.immediate(batch);
      } catch (error) {
        if (error instanceof Rejected) return undefined;
        throw error;
      }
    },
  };
}

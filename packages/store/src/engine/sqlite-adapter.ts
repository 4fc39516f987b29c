import type BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { claimVersionQuery, type PreparedBatch } from "./append-batch.ts";
import type { StoreDatabase } from "./database-schema.ts";
import type { EngineAdapter, WrittenRow } from "./engine-adapter.ts";

/** Rows per INSERT statement, well under SQLite's bound-parameter limit. */
const ROWS_PER_INSERT = 500;

/**
 * The SQLite adapter. An append is one `BEGIN IMMEDIATE` transaction, which takes the database's write
 * lock up front (waiting up to busy_timeout for other processes), so the version check and the inserts
 * see the same state. With one writer at a time, commit order is position order: no barrier needed.
 */
export function sqliteAdapter(database: BetterSqlite3.Database): EngineAdapter {
  const db = new Kysely<StoreDatabase>({ dialect: new SqliteDialect({ database }) });
  return {
    engine: "sqlite",
    db,
    visibilityBarrier: undefined,
    writeBatch: (batch) =>
      db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const rows = await writeInTransaction(conn, batch);
          await sql.raw(rows === undefined ? "rollback" : "commit").execute(conn);
          return rows;
        } catch (error) {
          await sql`rollback`.execute(conn);
          throw error;
        }
      }),
  };
}

async function writeInTransaction(db: Kysely<StoreDatabase>, batch: PreparedBatch): Promise<WrittenRow[] | undefined> {
  const claimed = await claimVersionQuery(db, batch)?.executeTakeFirst();
  if (claimed === undefined) return undefined;
  const firstSeq = claimed.version - batch.events.length + 1;
  if (batch.idempotencyKey !== null) {
    const inserted = await db
      .insertInto("idempotency_keys")
      .values({
        session_id: batch.sessionId,
        idempotency_key: batch.idempotencyKey,
        content_hash: batch.contentHash,
        first_seq: firstSeq,
        last_seq: claimed.version,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (inserted.numInsertedOrUpdatedRows === 0n) return undefined;
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
    written.push(...(await db.insertInto("events").values(chunk).returning(["position", "seq", "event_id"]).execute()));
  }
  return written;
}

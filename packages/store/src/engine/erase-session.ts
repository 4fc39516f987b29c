import {
  type EraseOptions,
  type ErasureResult,
  EVENT_KINDS,
  eventSkeleton,
  messagesIn,
  type SessionErased,
  type StoredEvent,
} from "@palimpsest/core";
import { type CompiledQuery, type Kysely, type Selectable, sql } from "kysely";
import { uuidv7 } from "uuidv7";
import type { SessionsTable, StoreDatabase } from "./database-schema.ts";
import type { Dialect } from "./dialect.ts";
import type { StoreFeature } from "./store-feature.ts";

/** The events row columns an erasure reads back: what it rewrites, and the text it compares against. */
export interface ErasedRow {
  seq: number;
  schema_version: number;
  data: string;
}

/** Events rewritten per UPDATE statement (three parameters each: far below either engine's limit). */
const ROWS_PER_UPDATE = 500;

/** An erasure ready to run: the compare-and-set on the session row, the writes it guards, and the outcome. */
export interface ErasurePlan {
  guard: CompiledQuery;
  statements: CompiledQuery[];
  result: ErasureResult;
}

/**
 * Plans the erasure of a session whose row and events (all of them, in seq order) were just read under
 * the session's lock (the store's LockedWrite). The guard sets `erased_at` and claims the next seq while
 * the session is still at the version read and not erased (under the lock it is), so the writes it guards
 * cover every event, and an append racing the erasure either commits before it (and is redacted with the
 * rest) or waits for the lock and is refused after it.
 *
 * The writes: each event whose data differs from its skeleton is rewritten to it, every content hash of
 * the session is cleared (a hash of content is derived from content: it could confirm a guess), the
 * session.erased event is inserted; the snapshot and the idempotency keys' hashes are deleted (a cache
 * and retry records: an erased session takes no writes to retry); then each feature's statements run (the
 * pre-compaction candidate deleted, hand-off texts cleared and open hand-offs failed), and last the
 * dialect's (on PostgreSQL other processes are woken as by an append).
 */
export function planErasure(
  db: Kysely<StoreDatabase>,
  dialect: Dialect,
  features: readonly StoreFeature[],
  session: Selectable<SessionsTable>,
  events: readonly { stored: StoredEvent; row: ErasedRow }[],
  options: EraseOptions,
): ErasurePlan {
  const sessionId = session.session_id;
  const now = new Date().toISOString();
  const seq = session.version + 1;
  const statements: CompiledQuery[] = [];
  let messages = 0;
  const rewrites: { seq: number; data: string; version: number }[] = [];
  for (const { stored, row } of events) {
    messages += messagesIn(stored);
    const data = JSON.stringify(eventSkeleton(stored).data);
    const version = EVENT_KINDS[stored.type].version;
    if (data !== row.data || row.schema_version !== version) rewrites.push({ seq: row.seq, data, version });
  }
  for (let start = 0; start < rewrites.length; start += ROWS_PER_UPDATE) {
    statements.push(rewriteQuery(db, dialect, sessionId, rewrites.slice(start, start + ROWS_PER_UPDATE)));
  }
  statements.push(
    db
      .updateTable("events")
      .set({ content_hash: null })
      .where("session_id", "=", sessionId)
      .where("content_hash", "is not", null)
      .compile(),
  );
  const erasedData: SessionErased = {
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    events: events.length,
    messages,
  };
  statements.push(
    db
      .insertInto("events")
      .values({
        event_id: uuidv7(),
        session_id: sessionId,
        seq,
        type: "session.erased",
        schema_version: EVENT_KINDS["session.erased"].version,
        occurred_at: now,
        causation_id: null,
        correlation_id: null,
        idempotency_key: null,
        content_hash: null,
        tenant_id: session.tenant_id,
        data: JSON.stringify(erasedData),
        recorded_at: now,
      })
      .compile(),
    db.deleteFrom("snapshots").where("session_id", "=", sessionId).compile(),
    db.deleteFrom("idempotency_keys").where("session_id", "=", sessionId).compile(),
    db.deleteFrom("log_keys").where("session_id", "=", sessionId).compile(),
  );
  for (const feature of features) statements.push(...(feature.eraseStatements?.(db, dialect, sessionId, now) ?? []));
  statements.push(...dialect.afterEraseStatements(db, sessionId, seq));
  const guard = db
    .updateTable("sessions")
    .set({ version: seq, updated_at: now, erased_at: now })
    .where("session_id", "=", sessionId)
    .where("version", "=", session.version)
    .where("erased_at", "is", null)
    .compile();
  return {
    guard,
    statements,
    result: { sessionId, erased: true, erasedAt: now, seq, events: events.length, messages },
  };
}

/**
 * One UPDATE … FROM (VALUES …) that sets the data and schema version of many events of one session (the
 * VALUES columns are named column1… on both engines; SQLite takes no column list on the alias).
 */
function rewriteQuery(
  db: Kysely<StoreDatabase>,
  dialect: Dialect,
  sessionId: string,
  rows: readonly { seq: number; data: string; version: number }[],
): CompiledQuery {
  const values = sql.join(
    rows.map((r) => sql`(cast(${r.seq} as integer), cast(${r.data} as text), cast(${r.version} as integer))`),
  );
  const data = dialect.jsonFromText(sql`v.data`);
  return sql`UPDATE events SET data = ${data}, schema_version = v.version
    FROM (SELECT column1 AS seq, column2 AS data, column3 AS version FROM (VALUES ${values}) AS vals) AS v
    WHERE events.session_id = ${sessionId} AND events.seq = v.seq`.compile(db);
}

/** The outcome an earlier erasure recorded, from its session.erased event (the session's last). */
export function earlierErasure(event: StoredEvent | undefined, sessionId: string, erasedAt: string): ErasureResult {
  const data = event?.type === "session.erased" ? event.data : { events: 0, messages: 0 };
  return {
    sessionId,
    erased: false,
    erasedAt,
    seq: event?.seq ?? 0,
    events: data.events,
    messages: data.messages,
  };
}

import type { EraseOptions, ErasureResult, StoredEvent } from "@palimpsest/core";
import { type CompiledQuery, type Kysely, type Selectable, sql } from "kysely";
import type { SessionsTable, StoreDatabase } from "./database-schema.ts";
import type { Dialect, TermsRow } from "./dialect.ts";
import { type ErasedRow, erasedEventRow, erasureOutcome, type SkeletonRewrite } from "./erasure-outcome.ts";
import type { StoreFeature } from "./store-feature.ts";

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
 * session.erased event is inserted (as `eventId`); the snapshot and the idempotency keys' hashes are deleted (a cache
 * and retry records: an erased session takes no writes to retry), and its messages taken out of the
 * search index (SQLite's by the terms each row was indexed under, computed again from the rows); then each feature's statements run (the
 * pre-compaction candidate deleted, hand-off texts cleared and open hand-offs failed), and last the
 * dialect's (on PostgreSQL other processes are woken as by an append).
 */
export function planErasure(
  db: Kysely<StoreDatabase>,
  dialect: Dialect,
  features: readonly StoreFeature[],
  session: Selectable<SessionsTable>,
  events: readonly { stored: StoredEvent; row: ErasedRow & TermsRow }[],
  options: EraseOptions,
  eventId: string,
): ErasurePlan {
  const sessionId = session.session_id;
  const now = new Date().toISOString();
  const { rewrites, erased, result } = erasureOutcome(sessionId, session.version, events, options, now);
  const seq = result.seq;
  const statements: CompiledQuery[] = [];
  for (let start = 0; start < rewrites.length; start += ROWS_PER_UPDATE) {
    statements.push(rewriteQuery(db, dialect, session, rewrites.slice(start, start + ROWS_PER_UPDATE)));
  }
  statements.push(
    db
      .updateTable("events")
      .set({ content_hash: null })
      .where("session_id", "=", sessionId)
      .where("content_hash", "is not", null)
      .compile(),
  );
  statements.push(
    db
      .insertInto("events")
      .values(erasedEventRow(sessionId, seq, session.tenant_id, erased, now, eventId))
      .compile(),
    db.deleteFrom("snapshots").where("session_id", "=", sessionId).compile(),
    db.deleteFrom("idempotency_keys").where("session_id", "=", sessionId).compile(),
    db.deleteFrom("log_keys").where("session_id", "=", sessionId).compile(),
    ...dialect.forgetSearch(
      db,
      session.tenant_id,
      sessionId,
      events.map((e) => e.row),
    ),
  );
  for (const feature of features) statements.push(...(feature.eraseStatements?.(db, dialect, sessionId, now) ?? []));
  statements.push(...dialect.afterEraseStatements(db, session.tenant_id, sessionId, seq));
  const guard = db
    .updateTable("sessions")
    .set({ version: seq, updated_at: now, erased_at: now })
    .where("session_id", "=", sessionId)
    .where("version", "=", session.version)
    .where("erased_at", "is", null)
    .compile();
  return { guard, statements, result };
}

/**
 * One UPDATE … FROM (VALUES …) that sets the data and schema version of many events of one session (the
 * VALUES columns are named column1… on both engines; SQLite takes no column list on the alias).
 */
function rewriteQuery(
  db: Kysely<StoreDatabase>,
  dialect: Dialect,
  session: Selectable<SessionsTable>,
  rows: readonly SkeletonRewrite[],
): CompiledQuery {
  const values = sql.join(
    rows.map((r) => sql`(cast(${r.seq} as integer), cast(${r.data} as text), cast(${r.version} as integer))`),
  );
  const data = dialect.jsonFromText(sql`v.data`);
  return sql`UPDATE events SET data = ${data}, schema_version = v.version
    FROM (SELECT column1 AS seq, column2 AS data, column3 AS version FROM (VALUES ${values}) AS vals) AS v
    WHERE events.session_id = ${session.session_id} AND events.tenant_id = ${session.tenant_id}
      AND events.seq = v.seq`.compile(db);
}

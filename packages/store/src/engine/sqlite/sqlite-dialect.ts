import { sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import { sqliteInsertUnderGuard } from "./sqlite-guarded-insert.ts";
import {
  createSqliteSearchIndex,
  createSqliteSearchPending,
  forgetSqliteSearch,
  indexSqliteTerms,
  remakeSqliteSearchIndex,
  sqliteSearchRows,
} from "./sqlite-search.ts";
import { keySqliteTableByTenant } from "./sqlite-tenant-keys.ts";

/** SQLite's SQL where the engines differ (see Dialect): one writer at a time, so locks are the write lock. */
export const sqliteDialect: Dialect = {
  engine: "sqlite",
  types: {
    timestamp: sql`text`,
    epochMs: "integer",
    real: sql`real`,
    json: "text",
    uuid: "text",
    bytes: sql`blob`,
  },
  async createEventsTable(db, columns) {
    // position: AUTOINCREMENT, so the rows of one insert get consecutive positions (see sqlite-adapter.ts).
    const events = columns(
      db.schema.createTable("events").addColumn("position", "integer", (c) => c.primaryKey().autoIncrement()),
    ).addUniqueConstraint("events_session_seq", ["session_id", "seq"]);
    await events.execute();
  },
  keyOnly: (table) => table.modifyEnd(sql`without rowid`),
  // Global readers page by position, the primary key.
  async createGlobalOrderIndex() {},
  placeholder: () => "?",
  holdsNoKey: (keys, add) =>
    "NOT EXISTS (SELECT 1 FROM log_keys WHERE log_keys.session_id = sessions.session_id AND " +
    `log_keys.tenant_id = sessions.tenant_id AND log_keys.key IN (SELECT value FROM json_each(${add(JSON.stringify(keys), "text")})))`,
  async knownLogKeys(db, tenant, sessionId, keys) {
    const { rows } = await sql<{ key: string }>`SELECT key FROM log_keys WHERE session_id = ${sessionId}
      AND tenant_id = ${tenant} AND key IN (SELECT value FROM json_each(${JSON.stringify(keys)}))`.execute(db);
    return rows.map((r) => r.key);
  },
  // The write statement or BEGIN IMMEDIATE holds the database's write lock from before it reads.
  lockRows: (query) => query,
  shareRows: (query) => query,
  claimSkipLocked: (query) => query,
  nowMs: () => sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`,
  utcDay: (column) => sql<string>`substr(${sql.raw(column)}, 1, 10)`,
  jsonFromText: (text) => sql<string>`${text}`,
  bytesForRead: (column) => sql<Uint8Array | null>`${sql.ref(column)}`,
  jsonPath: (column, path) => sql<string | null>`json_extract(${sql.raw(column)}, ${sql.raw(`'$.${path.join(".")}'`)})`,
  textPosition: (column, text) => sql<number>`instr(${sql.raw(column)}, ${text})`,
  // ANALYZE samples indexed columns only (sqlite_stat1, sqlite_stat4), and no content column is indexed; the
  // search index's keys are word prefixes, whose samples an erasure drops (forgetSearchSamples).
  async withoutStatistics() {},
  keyByTenant: keySqliteTableByTenant,
  afterEraseStatements: () => [],
  createSearchIndex: createSqliteSearchIndex,
  indexTerms: indexSqliteTerms,
  createSearchPending: createSqliteSearchPending,
  remakeSearchIndex: remakeSqliteSearchIndex,
  insertUnderGuard: sqliteInsertUnderGuard,
  forgetSearch: forgetSqliteSearch,
  searchRows: sqliteSearchRows,
};

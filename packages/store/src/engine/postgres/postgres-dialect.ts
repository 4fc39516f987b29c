import { sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import { CHANGES_CHANNEL, changeRef } from "./change-channel.ts";
import { postgresInsertUnderGuard } from "./postgres-guarded-insert.ts";
import {
  createPostgresSearchIndex,
  forgetPostgresSearch,
  indexPostgresTerms,
  postgresSearchRows,
} from "./postgres-search.ts";
import { keyPostgresTableByTenant } from "./postgres-tenant-keys.ts";

/** PostgreSQL's SQL where the engines differ (see Dialect). */
export const postgresDialect: Dialect = {
  engine: "postgres",
  types: {
    timestamp: sql`timestamptz`,
    epochMs: "bigint",
    real: sql`double precision`,
    json: sql`json`,
    uuid: "uuid",
    bytes: sql`bytea`,
  },
  async createEventsTable(db, columns) {
    // position: identity (unique by construction, no key); the key is (session_id, seq); transaction_id
    // orders global readers (see postgres-global-log.ts).
    const events = columns(
      db.schema.createTable("events").addColumn("position", "bigint", (c) => c.notNull().generatedAlwaysAsIdentity()),
    )
      .addColumn("transaction_id", sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_current_xact_id()`))
      .addPrimaryKeyConstraint("events_pkey", ["session_id", "seq"]);
    await events.execute();
    await db.schema.createIndex("events_position").on("events").column("position").execute();
  },
  keyOnly: (table) => table,
  async createGlobalOrderIndex(db) {
    // Global readers page by (transaction_id, position); see postgres-global-log.ts.
    await db.schema.createIndex("events_global_order").on("events").columns(["transaction_id", "position"]).execute();
  },
  placeholder: (index, pgType) => `$${index}::${pgType}`,
  holdsNoKey: (keys, add) =>
    `NOT EXISTS (SELECT 1 FROM unnest(${add(keys, "text[]")}) AS wanted(key) CROSS JOIN LATERAL ` +
    "(SELECT 1 FROM log_keys WHERE log_keys.session_id = sessions.session_id AND " +
    "log_keys.tenant_id = sessions.tenant_id AND log_keys.key = wanted.key OFFSET 0) AS held)",
  async knownLogKeys(db, tenant, sessionId, keys) {
    const { rows } = await sql<{ key: string }>`SELECT wanted.key FROM unnest(${keys}::text[]) AS wanted(key)
      CROSS JOIN LATERAL (SELECT 1 FROM log_keys WHERE log_keys.session_id = ${sessionId}
        AND log_keys.tenant_id = ${tenant} AND log_keys.key = wanted.key OFFSET 0) AS held`.execute(db);
    return rows.map((r) => r.key);
  },
  lockRows: (query) => query.forUpdate(),
  shareRows: (query) => query.forKeyShare(),
  claimSkipLocked: (query) => query.forUpdate().skipLocked(),
  nowMs: () => sql<number>`cast(extract(epoch from now()) * 1000 as bigint)`,
  utcDay: (column) => sql<string>`to_char(${sql.raw(column)} at time zone 'UTC', 'YYYY-MM-DD')`,
  jsonFromText: (text) => sql<string>`cast(${text} as json)`,
  bytesForRead: (column) => sql<string | null>`encode(${sql.ref(column)}, 'base64')`,
  jsonPath: (column, path) => sql<string | null>`${sql.raw(column)} #>> ${sql.raw(`'{${path.join(",")}}'`)}`,
  textPosition: (column, text) => sql<number>`strpos(${sql.raw(column)}::text, ${text})`,
  async withoutStatistics(db, table, columns) {
    // Declaring a column's own type again rewrites nothing, but drops the statistics gathered on it.
    const alters = [];
    for (const column of columns) {
      const { rows } = await sql<{ type: string }>`SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
        WHERE attrelid = cast(${table} as regclass) AND attname = ${column}`.execute(db);
      const type = sql.raw(rows[0]?.type ?? "");
      alters.push(sql`ALTER COLUMN ${sql.ref(column)} SET STATISTICS 0, ALTER COLUMN ${sql.ref(column)} TYPE ${type}`);
    }
    await sql`ALTER TABLE ${sql.table(table)} ${sql.join(alters)}`.execute(db);
  },
  keyByTenant: keyPostgresTableByTenant,
  afterEraseStatements: (db, tenant, sessionId, seq) => [
    sql`SELECT pg_notify(${CHANGES_CHANNEL}, ${`${seq} ${changeRef(tenant, sessionId)}`})`.compile(db),
  ],
  createSearchIndex: createPostgresSearchIndex,
  indexTerms: indexPostgresTerms,
  // Each event's vector is written in its own row, by the append's statement: nothing waits to be folded.
  async createSearchPending() {},
  async remakeSearchIndex() {},
  insertUnderGuard: (db, _writeGuarded, guard, insert) => postgresInsertUnderGuard(db, guard, insert),
  forgetSearch: forgetPostgresSearch,
  searchRows: postgresSearchRows,
};

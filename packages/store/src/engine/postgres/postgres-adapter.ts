import { createHash } from "node:crypto";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { PreparedBatch } from "../append-batch.ts";
import { claimVersionSql, INSERT_COLUMNS, SqlParams } from "../append-sql.ts";
import type { StoreDatabase } from "../database-schema.ts";
import type { EngineAdapter } from "../engine-adapter.ts";
import { CHANGES_CHANNEL, changeRef } from "./change-channel.ts";
import { postgresChangeSource } from "./postgres-changes.ts";
import { postgresDialect } from "./postgres-dialect.ts";
import { postgresGlobalHead, postgresVisibilityWait, readPostgresGlobalLog } from "./postgres-global-log.ts";
import { postgresGuardedWrite, postgresLockedWrite } from "./postgres-guarded-write.ts";
import { holdsRowsOf } from "./postgres-partition.ts";
import { postgresPurge } from "./postgres-purge.ts";
import { termsVector } from "./postgres-search.ts";
import { withTenantSetting } from "./postgres-tenant-keys.ts";

const INT8_OID = 20;
const JSON_OID = 114;

/**
 * Batches up to this size list their events as VALUES rows (four or five parameters each, planned
 * fastest); larger ones pass them as arrays through unnest(), far below the 65,535-parameter limit.
 */
const MAX_VALUES_ROWS = 1000;

/**
 * Statement texts a store names, so that each connection parses and plans them once (server-side
 * prepared statements); the texts seen after that run unnamed. Bounds the statements kept per connection.
 */
const MAX_NAMED_STATEMENTS = 64;

/** How long a rehearsal (EngineAdapter.rehearse) waits for a lock, in ms. */
const REHEARSAL_LOCK_TIMEOUT_MS = 100;

/** Type parsing for this pool only: int8 (positions) as numbers, json as its verbatim text. */
const storeTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === JSON_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig["getTypeParser"],
};

/**
 * Opens a pg pool with the store's type parsing, safe against dropped connections. pg emits 'error' on a
 * client whose connection drops (backend terminated, failover, a proxy's idle timeout, a restart), and an
 * 'error' event nobody listens to kills the process: the pool listens only while a client is idle, not
 * while it is checked out (by kysely's driver, a guarded write, pool.query between its own listeners).
 * So every client gets a listener for its whole life: the query in flight fails with the driver's error
 * (a retryable StorageError once guarded), the dead client leaves the pool on release (pg marks it not
 * queryable), and the next call gets a fresh connection. Every connection names `tenant` from its start,
 * for row-level security (see withTenantSetting).
 */
export function createPostgresPool(connectionString: string, tenant: string): pg.Pool {
  // allowExitOnIdle: idle connections do not keep the process alive (a script that never calls close()
  // exits once its work is done, as on SQLite, not after the pool's 10 s idle timeout).
  const pool = new pg.Pool({
    connectionString: withTenantSetting(connectionString, tenant),
    types: storeTypes,
    allowExitOnIdle: true,
  });
  pool.on("error", () => {}); // an idle client dropped: the pool has already removed it
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

/**
 * The PostgreSQL adapter of `tenant` (its pool's connections name it). An append is ONE statement: a CTE claims the versions on the sessions row
 * (whose row lock serializes appends per session), records the idempotency key, notifies other processes
 * on commit (see postgres-changes.ts), and inserts every event. Global readers page by (xid, position)
 * below the oldest open transaction (see global-log.ts).
 */
export function postgresAdapter(pool: pg.Pool, tenant: string): EngineAdapter {
  const db = new Kysely<StoreDatabase>({ dialect: new PostgresDialect({ pool }) });
  /** Statement names by text; a name is the text's hash, so stores sharing a pool agree on it. */
  const names = new Map<string, string | undefined>();
  const nameOf = (text: string): string | undefined => {
    if (names.has(text)) return names.get(text);
    const name =
      names.size < MAX_NAMED_STATEMENTS
        ? `palimpsest_append_${createHash("sha1").update(text).digest("hex")}`
        : undefined;
    if (name !== undefined) names.set(text, name);
    return name;
  };
  /** Runs the batch's one statement on `on` (named while there are names left): the rows it inserted. */
  const runBatch = async (
    on: pg.Pool | pg.PoolClient,
    batch: PreparedBatch,
  ): Promise<{ position: number; seq: number }[]> => {
    const params = new SqlParams(postgresDialect);
    const text = writeSql(batch, params);
    if (text === undefined) return [];
    const name = batch.events.length <= MAX_VALUES_ROWS ? nameOf(text) : undefined;
    return (await on.query<{ position: number; seq: number }>({ text, values: params.values, name })).rows;
  };
  return {
    dialect: postgresDialect,
    db,
    readGlobalLog: readPostgresGlobalLog,
    awaitVisible: postgresVisibilityWait,
    globalHead: postgresGlobalHead,
    listen: postgresChangeSource(pool, db, tenant),
    writeGuarded: postgresGuardedWrite(pool),
    writeLocked: postgresLockedWrite(pool),
    writeErasure: postgresLockedWrite(pool),
    purgeFiles: postgresPurge(pool),
    async writeBatch(batch) {
      let rows: { position: number; seq: number }[];
      try {
        rows = await runBatch(pool, batch);
      } catch (error) {
        if (isUsedIdempotencyKey(error)) return undefined;
        throw error;
      }
      if (rows.length === 0) return undefined;
      const count = batch.events.length;
      let version = 0;
      for (const row of rows) version = Math.max(version, row.seq);
      const firstSeq = version - count + 1;
      const positions = new Array<number>(count);
      for (const row of rows) positions[row.seq - firstSeq] = row.position;
      return { version, positions };
    },

    async rehearse(batches, statements = []) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        // A lock another transaction holds (a conversion to partitions) fails the rehearsal rather than stalling it.
        await client.query(`SET LOCAL lock_timeout = ${REHEARSAL_LOCK_TIMEOUT_MS}`);
        for (const batch of batches) await runBatch(client, batch);
        for (const statement of statements) await client.query(statement.sql, [...statement.parameters]);
      } finally {
        // The positions the inserts drew stay drawn (sequences are not transactional): gaps, as any failed append leaves.
        await client.query("ROLLBACK").catch((error: Error) => {
          broken = error;
        });
        client.release(broken);
      }
    },
  };
}

/** The one statement of an append, or undefined when the batch can never apply. */
function writeSql(batch: PreparedBatch, p: SqlParams): string | undefined {
  const claim = claimVersionSql(batch, p);
  if (claim === undefined) return undefined;
  const count = batch.events.length;
  const keyed = batch.idempotencyKey !== null;
  const recordKey = keyed
    ? ", keyed AS (INSERT INTO idempotency_keys (session_id, tenant_id, idempotency_key, content_hash, first_seq, last_seq) " +
      `SELECT ${p.add(batch.sessionId, "text")}, ${p.add(batch.tenantId, "text")}, ${p.add(batch.idempotencyKey, "text")}, ` +
      `${p.add(batch.contentHash, "text")}, claimed.version - ${count} + 1, claimed.version FROM claimed)`
    : "";
  // Every batch writes its keys (an empty array when it adds none), so the text depends on the shape alone.
  const logKeys =
    ", logged AS (INSERT INTO log_keys (session_id, tenant_id, key) " +
    `SELECT ${p.add(batch.sessionId, "text")}, ${p.add(batch.tenantId, "text")}, k ` +
    `FROM claimed, unnest(${p.add(batch.keys, "text[]")}) AS k ` +
    "ON CONFLICT DO NOTHING)";
  const notify =
    `, notified AS (SELECT pg_notify('${CHANGES_CHANNEL}', claimed.version || ' ' || ` +
    `${p.add(changeRef(batch.tenantId, batch.sessionId), "text")}) FROM claimed)`;
  const select =
    `SELECT v.event_id, ${p.add(batch.sessionId, "text")}, claimed.version - ${count} + v.ord::int, v.type, ` +
    `v.schema_version, v.occurred_at, ${p.add(batch.causationId, "text")}, ` +
    `${p.add(batch.correlationId, "text")}, ${p.add(batch.idempotencyKey, "text")}, ` +
    `${keyed ? "v.content_hash" : "NULL"}, ${p.add(batch.tenantId, "text")}, v.data, ${p.add(batch.recordedAt, "timestamptz")}, ` +
    termsVector("v.terms");
  let source: string;
  if (count <= MAX_VALUES_ROWS) {
    const rows = batch.events.map(
      (e, i) =>
        `(${p.add(e.eventId, "uuid")}, ${p.add(e.event.type, "text")}, ${p.add(e.schemaVersion, "int")}, ` +
        `${p.add(e.data, "json")}, ${p.add(e.occurredAt, "timestamptz")}, ${p.add(e.terms, "text")}, ` +
        `${keyed ? `${p.add(e.contentHash, "text")}, ` : ""}${i + 1})`,
    );
    source = `(VALUES ${rows.join(", ")}) AS v(event_id, type, schema_version, data, occurred_at, terms, ${keyed ? "content_hash, " : ""}ord)`;
  } else {
    const column = <T>(value: (e: PreparedBatch["events"][number]) => T) => batch.events.map(value);
    source =
      `unnest(${p.add(
        column((e) => e.eventId),
        "uuid[]",
      )}, ${p.add(
        column((e) => e.event.type),
        "text[]",
      )}, ` +
      `${p.add(
        column((e) => e.schemaVersion),
        "int[]",
      )}, ${p.add(
        column((e) => e.data),
        "json[]",
      )}, ${p.add(
        column((e) => e.occurredAt),
        "timestamptz[]",
      )}, ${p.add(
        column((e) => e.terms),
        "text[]",
      )}` +
      `${
        keyed
          ? `, ${p.add(
              column((e) => e.contentHash),
              "text[]",
            )}`
          : ""
      }) WITH ORDINALITY ` +
      `AS v(event_id, type, schema_version, data, occurred_at, terms, ${keyed ? "content_hash, " : ""}ord)`;
  }
  return (
    `WITH claimed AS (${claim})${recordKey}${logKeys}${notify} INSERT INTO events (${INSERT_COLUMNS}, search) ` +
    `${select} FROM claimed, notified, ${source} ORDER BY v.ord RETURNING position, seq`
  );
}

/**
 * True for the unique violation a concurrent append with the same idempotency key causes: in the table's
 * one key, which a partitioned log (see postgres-partition.ts) reports on the partition's copy of it.
 */
function isUsedIdempotencyKey(error: unknown): boolean {
  const e = error as { code?: unknown; table?: unknown };
  return e.code === "23505" && typeof e.table === "string" && holdsRowsOf("idempotency_keys", e.table);
}

import { backoff, type PurgedRelation, StorageError } from "@palimpsest/core";
import type pg from "pg";
import { type PurgeFiles, tenths } from "../erasure-purge.ts";

/**
 * How long one attempt at a table's lock waits (lock_timeout). While VACUUM FULL waits for its lock, every
 * later reader and writer of the table queues behind it: short attempts bound that queue when a long
 * transaction holds the table, and the purge tries again after a pause.
 */
const LOCK_ATTEMPT_MS = 250;

/** The first pause between two attempts, and the longest (each doubles, then a random part is cut off). */
const FIRST_PAUSE_MS = 20;
const LONGEST_PAUSE_MS = 1_000;

/** SQLSTATE lock_not_available: lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = "55P03";

/**
 * PostgreSQL's purge. An erasure's UPDATE and DELETE leave the old row versions in the heap and TOAST
 * pages; VACUUM makes their space free but does not clear it (page compaction moves the live tuples and
 * leaves the old bytes in the hole), so only writing the table anew removes them: VACUUM FULL copies the
 * live rows into new files (the table, its TOAST table and every index rebuilt) and the old files are
 * emptied at commit and unlinked at the next checkpoint.
 *
 * First it checks that the role may rewrite every table (StorageError naming what is needed otherwise),
 * then waits until no transaction that began before the purge is still open in the database (VACUUM FULL
 * copies the row versions an open snapshot can still see: an erased row's old version among them), then
 * rewrites each table (each partition of a partitioned one, see leafTables) in its own transaction (its lock taken in short attempts, see LOCK_ATTEMPT_MS), and
 * checks that each got new files (a role PostgreSQL will not let vacuum a table gets a warning, not an error).
 */
export function postgresPurge(pool: pg.Pool): PurgeFiles {
  return async (tables, waitTimeoutMs) => {
    const client = await pool.connect();
    try {
      const leaves = await leafTables(client, tables);
      await checkMayRewrite(client, leaves);
      let waitedMs = await awaitOlderTransactions(client, waitTimeoutMs);
      await client.query(`SET lock_timeout = ${LOCK_ATTEMPT_MS}`);
      const relations: PurgedRelation[] = [];
      for (const table of leaves) {
        const before = await relationFiles(client, table);
        const rewrite = await vacuumFull(client, table, waitTimeoutMs);
        const after = await relationFiles(client, table);
        if (after.filenode === before.filenode) throw notRewritten(table);
        relations.push({ name: table, bytesBefore: before.bytes, bytesAfter: after.bytes, ms: tenths(rewrite.ms) });
        waitedMs += rewrite.waitedMs;
      }
      return { relations, waitedMs: tenths(waitedMs) };
    } finally {
      // The connection goes back to the pool as it came.
      await client.query("RESET lock_timeout").catch(() => {});
      client.release();
    }
  };
}

/**
 * The tables holding `tables`' rows, in order: a plain table itself; a partitioned one (see
 * postgres-partition.ts) its partitions, each rewritten alone, so that a rewrite holds the lock of one
 * partition's sessions only.
 */
async function leafTables(client: pg.PoolClient, tables: readonly string[]): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    // pg_partition_tree lists no row for a table that is not partitioned: that table is its own leaf.
    `SELECT c.relname AS name
       FROM unnest($1::text[]) WITH ORDINALITY AS t(name, ord)
       LEFT JOIN LATERAL pg_partition_tree(t.name::regclass) p ON p.isleaf
       JOIN pg_class c ON c.oid = coalesce(p.relid, t.name::regclass)
      ORDER BY t.ord, c.relname`,
    [tables],
  );
  return rows.map((r) => r.name);
}

/** What a role needs to rewrite a table, as the errors say it. */
const REWRITE_NEEDS =
  "VACUUM FULL needs the tables' owner (the role that ran the migrations), the database's owner or a superuser " +
  "(PostgreSQL 17 and later: or the MAINTAIN privilege on them); run the purge as such a role";

/**
 * StorageError naming the tables the current role may not VACUUM FULL: neither their owner (or a member
 * of it; a superuser is one), the database's owner, nor (PostgreSQL 17) holding MAINTAIN on them.
 */
async function checkMayRewrite(client: pg.PoolClient, tables: readonly string[]): Promise<void> {
  const { rows } = await client.query<{ relname: string; role: string }>(
    `SELECT c.relname, current_user AS role
       FROM pg_class c
      WHERE c.oid = ANY($1::text[]::regclass[])
        AND NOT pg_has_role(c.relowner, 'USAGE')
        AND NOT (SELECT pg_has_role(datdba, 'USAGE') FROM pg_database WHERE datname = current_database())
        AND NOT CASE WHEN current_setting('server_version_num')::int >= 170000
                     THEN has_table_privilege(c.oid, 'MAINTAIN') ELSE false END
      ORDER BY c.relname`,
    [tables],
  );
  if (rows.length === 0) return;
  throw new StorageError(
    "purgeErased",
    `the role ${rows[0]?.role} may not rewrite ${rows.map((r) => r.relname).join(", ")}: ${REWRITE_NEEDS}`,
  );
}

/** The error for a table VACUUM FULL passed over (PostgreSQL only warns when the role may not vacuum it). */
function notRewritten(table: string): StorageError {
  return new StorageError(
    "purgeErased",
    `VACUUM FULL left ${table} as it was (this role may not vacuum it): ${REWRITE_NEEDS}`,
  );
}

/**
 * Waits until every transaction that could keep rows as they were before the purge began has ended: no
 * backend of this database (other than this one, and autovacuum's lazy VACUUMs, which PostgreSQL itself
 * does not count) holds a snapshot or a transaction id older than the next transaction id at the start; no
 * backend of another database holds such a transaction id (VACUUM FULL's own snapshot counts it as
 * running, and keeps every row version it might see: an erased row's old one); nor does a replication slot
 * or a prepared transaction. How long it waited; a retryable StorageError naming the holders after
 * `timeoutMs`.
 */
async function awaitOlderTransactions(client: pg.PoolClient, timeoutMs: number): Promise<number> {
  const start = performance.now();
  const { rows } = await client.query<{ next: string }>("SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next");
  const next = rows[0]?.next;
  const pauses = backoff(FIRST_PAUSE_MS, LONGEST_PAUSE_MS);
  for (;;) {
    const held = await client.query<{ holder: string }>(
      `SELECT holder FROM (
         SELECT 'pid ' || pid || coalesce(' of database ' || datname, '') ||
                coalesce(' (open since ' || xact_start || ')', '') AS holder,
                -- another database's snapshot holds back none of this one's rows, but its transaction id
                -- does: every snapshot taken here while it runs (VACUUM FULL's own) counts it as running
                unnest(ARRAY[CASE WHEN datname IS NULL OR datname = current_database() THEN backend_xmin END,
                             backend_xid]) AS x
           FROM pg_stat_activity
          WHERE pid <> pg_backend_pid()
            -- a lazy VACUUM's snapshot holds back no row version (PostgreSQL skips it); its ANALYZE's does
            AND NOT (backend_type = 'autovacuum worker' AND query LIKE 'autovacuum: VACUUM %'
                     AND query NOT LIKE 'autovacuum: VACUUM ANALYZE %')
         UNION ALL SELECT 'replication slot ' || slot_name, xmin FROM pg_replication_slots
         -- a prepared transaction of any database is running, as a transaction of another database is
         UNION ALL SELECT 'prepared transaction ' || gid, transaction FROM pg_prepared_xacts
       ) AS holders
       WHERE x IS NOT NULL AND age(x) > age(xid($1::xid8))`,
      [next],
    );
    const waited = performance.now() - start;
    if (held.rows.length === 0) return waited;
    if (waited >= timeoutMs) {
      const holders = [...new Set(held.rows.map((r) => r.holder))].join(", ");
      throw new StorageError(
        "purgeErased",
        `transactions older than the purge still see the erased rows as they were (${holders}); waited ` +
          `${Math.round(waited)} ms and rewrote nothing: let them end, then run the purge again`,
        { retryable: true },
      );
    }
    await pauses.pause(timeoutMs - waited);
  }
}

/** VACUUM FULL of `table`, its lock taken in short attempts for up to `timeoutMs`: the last attempt's time, and the waits before it. */
async function vacuumFull(
  client: pg.PoolClient,
  table: string,
  timeoutMs: number,
): Promise<{ ms: number; waitedMs: number }> {
  const start = performance.now();
  const pauses = backoff(FIRST_PAUSE_MS, LONGEST_PAUSE_MS);
  for (;;) {
    const attempt = performance.now();
    try {
      await client.query(`VACUUM (FULL) ${client.escapeIdentifier(table)}`);
      const end = performance.now();
      return { ms: end - attempt, waitedMs: attempt - start };
    } catch (error) {
      if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
      const waited = performance.now() - start;
      if (waited >= timeoutMs) {
        throw new StorageError(
          "purgeErased",
          `could not take the lock on ${table} to rewrite it: other transactions held it for ${Math.round(waited)} ms; ` +
            "the tables before it are purged: run the purge again",
          { cause: error, retryable: true },
        );
      }
      await pauses.pause(timeoutMs - waited);
    }
  }
}

/** The table's file node (new after a rewrite) and its size with its TOAST table and indexes. */
async function relationFiles(client: pg.PoolClient, table: string): Promise<{ filenode: string; bytes: number }> {
  const { rows } = await client.query<{ filenode: string; bytes: string }>(
    "SELECT pg_relation_filenode($1::regclass)::text AS filenode, pg_total_relation_size($1::regclass)::text AS bytes",
    [table],
  );
  const row = rows[0];
  return { filenode: row?.filenode ?? "", bytes: Number(row?.bytes ?? 0) };
}

import { StorageError } from "@palimpsest/core";
import { sql, type Transaction } from "kysely";
import type { StoreDatabase } from "../database-schema.ts";
import type { PartitionedTable, PartitionTables } from "../table-partitions.ts";
import { confineRowsToTenant } from "./postgres-tenant-keys.ts";

/** The advisory lock two conversions take turns on (any fixed number: "palimpsest partition" in hex, cut). */
const PARTITION_LOCK = 0x70616c70;

/** What names the table of the layout being replaced while its rows are copied; dropped at the end. */
const OLD_SUFFIX = "__unpartitioned";

/** SQLSTATE insufficient_privilege. */
const INSUFFICIENT_PRIVILEGE = "42501";

/** SQLSTATE out_of_memory in shared memory: the lock table is full (every relation made here is locked until commit). */
const OUT_OF_SHARED_MEMORY = "53200";

/**
 * Replaces each of `tables` (in that order: `sessions` first, as appends lock it first) with a table
 * hash-partitioned by `session_id` into `partitions` partitions named `<table>_p<i>`, in ONE transaction
 * under an advisory lock: a conversion killed at any point leaves the old layout whole, and two at once
 * take turns (the second finds the work done). Each table keeps its name, columns, defaults, keys and
 * indexes (by their names), grants, column statistics targets, row-level security policy (on the parent
 * and on every partition) and its rows, counted on both sides. An identity column (the events' global
 * `position`) becomes a sequence default continuing where the identity stopped (PostgreSQL 15 has no
 * identity on a partitioned table). A table already partitioned by session into as many partitions is left
 * as it is; one partitioned into another number is converted again.
 *
 * Readers and writers of the tables it converts wait for the commit (ACCESS EXCLUSIVE locks, taken at the
 * start; none when there is nothing to convert), then go on against the new tables. `onTable` hears of each
 * table as it is done, before the commit. Needs the tables' owner (the role that ran the migrations) or a superuser:
 * StorageError naming the role otherwise, and nothing changed.
 */
export const partitionPostgresTables: PartitionTables = async (db, tables, partitions, onTable) => {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`.execute(trx);
      await checkOwnsTables(trx, tables);
      const todo = new Set<string>();
      for (const table of tables) if ((await partitionCount(trx, table)) !== partitions) todo.add(table);
      // Nothing to do takes no table lock: a run repeated on a live database holds up no writer.
      if (todo.size > 0) {
        const locked = tables.filter((t) => todo.has(t)).map((t) => sql.table(t));
        await sql`LOCK TABLE ${sql.join(locked)} IN ACCESS EXCLUSIVE MODE`.execute(trx);
      }
      const done: PartitionedTable[] = [];
      for (const table of tables) {
        const start = performance.now();
        const converted = todo.has(table);
        const rows = converted ? await convertTable(trx, table, partitions) : 0;
        const result = { name: table, converted, rows, ms: Math.round(performance.now() - start) };
        onTable(result);
        done.push(result);
      }
      return done;
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === INSUFFICIENT_PRIVILEGE) {
      throw new StorageError("partitionLog", `${(error as Error).message}: ${OWNER_NEEDED}`, { cause: error });
    }
    if (code === OUT_OF_SHARED_MEMORY) {
      throw new StorageError(
        "partitionLog",
        `dividing the log into ${partitions} partitions locks more tables and indexes in one transaction than ` +
          "the server's lock table holds (max_locks_per_transaction × max_connections): use fewer partitions, " +
          "or raise max_locks_per_transaction (a server restart); nothing was changed",
        { cause: error },
      );
    }
    throw error;
  }
};

/** Who may convert, as the errors say it. */
const OWNER_NEEDED =
  "partitioning replaces the tables, which needs their owner (the role that ran the migrations) or a superuser; nothing was changed";

/** StorageError naming the tables the current role does not own (nor is a member of their owner). */
async function checkOwnsTables(trx: Transaction<StoreDatabase>, tables: readonly string[]): Promise<void> {
  const { rows } = await sql<{ relname: string; role: string }>`
    SELECT c.relname, current_user AS role FROM pg_class c
    WHERE c.oid = ANY(cast(${[...tables]} as text[])::regclass[]) AND NOT pg_has_role(c.relowner, 'USAGE')
    ORDER BY c.relname`.execute(trx);
  if (rows.length === 0) return;
  throw new StorageError(
    "partitionLog",
    `the role ${rows[0]?.role} does not own ${rows.map((r) => r.relname).join(", ")}: ${OWNER_NEEDED}`,
  );
}

/** How many partitions `table` is hash-partitioned into by `session_id`; undefined when it is not so. */
async function partitionCount(trx: Transaction<StoreDatabase>, table: string): Promise<number | undefined> {
  const { rows } = await sql<{ partitions: number }>`
    SELECT (SELECT count(*) FROM pg_inherits WHERE inhparent = p.partrelid)::int AS partitions
    FROM pg_partitioned_table p JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
    WHERE p.partrelid = cast(${table} as regclass) AND p.partstrat = 'h' AND p.partnatts = 1
      AND a.attname = 'session_id'`.execute(trx);
  return rows[0]?.partitions;
}

/** A key or index of the table being replaced, as PostgreSQL prints it. */
interface IndexRow {
  name: string;
  definition: string;
  constraint: string | null;
}

/** A privilege granted on a table or sequence, its grantee quoted (or PUBLIC). */
interface Grant {
  grantee: string;
  privilege: string;
}

/** The privileges granted on `relation` to roles other than its owner. */
async function grantsOn(trx: Transaction<StoreDatabase>, relation: string): Promise<Grant[]> {
  const { rows } = await sql<Grant>`
    SELECT CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee,
      g.privilege_type AS privilege
    FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) g LEFT JOIN pg_roles r ON r.oid = g.grantee
    WHERE c.oid = cast(${relation} as regclass) AND g.grantee <> c.relowner`.execute(trx);
  return rows;
}

/** What the new table must have again, read from the old one before it is renamed. */
interface TableShape {
  indexes: IndexRow[];
  grants: Grant[];
  noStatistics: string[];
  sequences: { column: string; sequence: string; identity: boolean; last: string | null; grants: Grant[] }[];
  rowSecurity: boolean;
  partitions: string[];
}

/** Reads what convertTable must carry over from `table`. */
async function shapeOf(trx: Transaction<StoreDatabase>, table: string): Promise<TableShape> {
  const relation = sql`cast(${table} as regclass)`;
  const indexes = await sql<IndexRow>`
    SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS definition,
      (SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
        WHERE c.conindid = x.indexrelid AND c.conrelid = x.indrelid AND c.contype IN ('p', 'u')) AS constraint
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
    WHERE x.indrelid = ${relation} ORDER BY i.relname`.execute(trx);
  const grants = await grantsOn(trx, table);
  const columns = await sql<{ column: string; statistics: number; identity: string; sequence: string | null }>`
    SELECT attname AS column, attstattarget AS statistics, attidentity AS identity,
      pg_get_serial_sequence(quote_ident(${table}), attname) AS sequence
    FROM pg_attribute WHERE attrelid = ${relation} AND attnum > 0 AND NOT attisdropped`.execute(trx);
  const sequences: TableShape["sequences"] = [];
  for (const c of columns.rows) {
    if (c.sequence === null) continue;
    const last = await sql<{ last: string | null }>`
      SELECT pg_sequence_last_value(cast(${c.sequence} as regclass))::text AS last`.execute(trx);
    sequences.push({
      column: c.column,
      sequence: c.sequence,
      identity: c.identity !== "",
      last: last.rows[0]?.last ?? null,
      grants: await grantsOn(trx, c.sequence),
    });
  }
  const security = await sql<{ enabled: boolean }>`
    SELECT relrowsecurity AS enabled FROM pg_class WHERE oid = ${relation}`.execute(trx);
  const partitions = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = ${relation}`.execute(trx);
  return {
    partitions: partitions.rows.map((p) => p.name),
    indexes: indexes.rows,
    grants,
    noStatistics: columns.rows.filter((c) => c.statistics === 0).map((c) => c.column),
    sequences,
    rowSecurity: security.rows[0]?.enabled === true,
  };
}

/**
 * Replaces `table` by a hash-partitioned copy of itself (see partitionPostgresTables): the old table and
 * its indexes are renamed out of the way, the new one is created like it with its partitions, the rows are
 * copied (the owner reading past row-level security, as the old table stops forcing it), the keys and
 * indexes built by their old names, grants, statistics targets, sequences and the tenant policy restored,
 * and the old table dropped. The rows copied; StorageError (rolling everything back) if they differ in number.
 */
async function convertTable(trx: Transaction<StoreDatabase>, table: string, partitions: number): Promise<number> {
  const shape = await shapeOf(trx, table);
  const t = sql.table(table);
  const old = sql.table(`${table}${OLD_SUFFIX}`);
  for (const s of shape.sequences) {
    // An identity's sequence goes with it; an owned sequence must outlive the old table.
    if (s.identity) await sql`ALTER TABLE ${t} ALTER COLUMN ${sql.ref(s.column)} DROP IDENTITY`.execute(trx);
    else await sql`ALTER SEQUENCE ${sql.raw(s.sequence)} OWNED BY NONE`.execute(trx);
  }
  await sql`ALTER TABLE ${t} RENAME TO ${old}`.execute(trx);
  for (const partition of shape.partitions) {
    // Converted before: its partitions and their indexes hold the names the new ones take.
    await sql`ALTER TABLE ${sql.table(partition)} RENAME TO ${sql.table(`${partition}${OLD_SUFFIX}`)}`.execute(trx);
    const indexes = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
      WHERE x.indrelid = cast(${`${partition}${OLD_SUFFIX}`} as regclass)`.execute(trx);
    // Named by PostgreSQL, up to 63 characters: a suffix would be cut off, so each gets a short name.
    for (const [k, { name }] of indexes.rows.entries()) {
      await sql`ALTER INDEX ${sql.ref(name)} RENAME TO ${sql.ref(`${partition}${OLD_SUFFIX}_${k}`)}`.execute(trx);
    }
  }
  for (const index of shape.indexes) await renameOut(trx, index.name);
  await sql`ALTER TABLE ${old} NO FORCE ROW LEVEL SECURITY`.execute(trx);
  await sql`CREATE TABLE ${t} (LIKE ${old} INCLUDING ALL EXCLUDING INDEXES EXCLUDING IDENTITY)
    PARTITION BY HASH (session_id)`.execute(trx);
  const names = partitionNames(table, partitions);
  for (const [remainder, name] of names.entries()) {
    await sql`CREATE TABLE ${sql.table(name)} PARTITION OF ${t}
      FOR VALUES WITH (MODULUS ${sql.lit(partitions)}, REMAINDER ${sql.lit(remainder)})`.execute(trx);
  }
  const copied = await sql`INSERT INTO ${t} SELECT * FROM ${old}`.execute(trx);
  const { rows } = await sql<{ count: string }>`SELECT count(*)::text AS count FROM ${old}`.execute(trx);
  const count = Number(rows[0]?.count ?? 0);
  if (Number(copied.numAffectedRows ?? 0) !== count) {
    throw new StorageError(
      "partitionLog",
      `${table}: copied ${copied.numAffectedRows} of ${count} rows; nothing was changed`,
    );
  }
  for (const index of shape.indexes) {
    if (index.constraint !== null) {
      await sql`ALTER TABLE ${t} ADD CONSTRAINT ${sql.ref(index.name)} ${sql.raw(index.constraint)}`.execute(trx);
    } else {
      // Printed from the old table's parent, a partitioned index reads ON ONLY: built here on every partition.
      await sql.raw(index.definition.replace(" ON ONLY ", " ON ")).execute(trx);
    }
  }
  for (const s of shape.sequences) {
    const column = sql.ref(s.column);
    if (s.identity) {
      // The identity's sequence went with it: a sequence of that name continues where it stopped.
      await sql`CREATE SEQUENCE ${sql.raw(s.sequence)} AS bigint`.execute(trx);
      if (s.last !== null) await sql`SELECT setval(cast(${s.sequence} as regclass), ${s.last}::bigint)`.execute(trx);
      const next = sql`nextval(cast(${sql.lit(s.sequence)} as regclass))`; // DDL takes no parameters
      await sql`ALTER TABLE ${t} ALTER COLUMN ${column} SET DEFAULT ${next}`.execute(trx);
      // An identity needs no privilege on its sequence, a default does: whoever may insert may use it.
      const inserters = shape.grants.filter((g) => g.privilege === "INSERT");
      for (const g of [...s.grants, ...inserters.map((g) => ({ grantee: g.grantee, privilege: "USAGE" }))]) {
        await sql`GRANT ${sql.raw(g.privilege)} ON SEQUENCE ${sql.raw(s.sequence)} TO ${sql.raw(g.grantee)}`.execute(
          trx,
        );
      }
    }
    await sql`ALTER SEQUENCE ${sql.raw(s.sequence)} OWNED BY ${t}.${column}`.execute(trx);
  }
  for (const g of shape.grants) {
    await sql`GRANT ${sql.raw(g.privilege)} ON ${t} TO ${sql.raw(g.grantee)}`.execute(trx);
  }
  for (const column of shape.noStatistics) {
    await sql`ALTER TABLE ${t} ALTER COLUMN ${sql.ref(column)} SET STATISTICS 0`.execute(trx);
  }
  if (shape.rowSecurity) {
    // On the partitions too: a role granted them directly (default privileges) must meet the same policy.
    for (const name of [table, ...names]) await confineRowsToTenant(trx, name);
  }
  await sql`DROP TABLE ${old}`.execute(trx);
  return count;
}

/** Renames index `name` out of the way of the new table's (its constraint, if it backs one, with it). */
async function renameOut(trx: Transaction<StoreDatabase>, name: string): Promise<void> {
  await sql`ALTER INDEX ${sql.ref(name)} RENAME TO ${sql.ref(`${name}${OLD_SUFFIX}`)}`.execute(trx);
}

/** Whether `relation` is `table` or one of the partitions partitionPostgresTables names for it. */
export function holdsRowsOf(table: string, relation: string): boolean {
  return relation === table || (relation.startsWith(`${table}_p`) && /^\d+$/.test(relation.slice(table.length + 2)));
}

/** The partitions' names, `<table>_p<i>`, numbered from 0 with as many digits as the last needs. */
function partitionNames(table: string, partitions: number): string[] {
  const digits = String(partitions - 1).length;
  return Array.from({ length: partitions }, (_, i) => `${table}_p${String(i).padStart(digits, "0")}`);
}

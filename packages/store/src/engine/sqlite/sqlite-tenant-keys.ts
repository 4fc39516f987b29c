import { type Kysely, sql } from "kysely";
import { withTenantColumn } from "../tenant-keys.ts";
import { TENANT_COLUMN } from "../tenant-scope.ts";

/** The definition of a table or index as SQLite keeps it. */
interface SchemaRow {
  type: "table" | "index";
  name: string;
  sql: string | null;
}

/**
 * Migration 0016 on SQLite for one table: SQLite cannot change a table's keys, so the table is rebuilt
 * (created again under a new name from its own definition with the tenant column and keys of
 * withTenantColumn, its rows copied, the old one dropped, the new one renamed, its indexes created again),
 * inside the migration's transaction. Existing rows go to the `default` tenant; AUTOINCREMENT's counter
 * is kept, so positions never repeat. A table keyed by tenant already is left as it is.
 */
export async function keySqliteTableByTenant(db: Kysely<unknown>, table: string): Promise<void> {
  const schema = (
    await sql<SchemaRow>`SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ${table} AND sql IS NOT NULL`.execute(
      db,
    )
  ).rows;
  const definition = schema.find((row) => row.type === "table")?.sql;
  if (definition == null) throw new Error(`migration 0016: no table ${table}`);
  const columns = (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(db)).rows.map(
    (c) => c.name,
  );
  const hasTenant = columns.includes(TENANT_COLUMN);
  const rebuilt = `${table}_by_tenant`;
  if (hasTenant && tenantTableSql(definition, table, table, true) === definition) return; // keyed by tenant already
  await sql.raw(tenantTableSql(definition, table, rebuilt, hasTenant)).execute(db);
  const copied = columns.map((c) => `"${c}"`).join(", ");
  await sql
    .raw(
      hasTenant
        ? `INSERT INTO "${rebuilt}" (${copied}) SELECT ${copied} FROM "${table}"`
        : `INSERT INTO "${rebuilt}" (${copied}, "${TENANT_COLUMN}") SELECT ${copied}, 'default' FROM "${table}"`,
    )
    .execute(db);
  const counter = (
    await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = ${table}`
      .execute(db)
      .catch(() => ({ rows: [] }))
  ).rows[0]?.seq;
  await sql.raw(`DROP TABLE "${table}"`).execute(db);
  await sql.raw(`ALTER TABLE "${rebuilt}" RENAME TO "${table}"`).execute(db);
  if (counter !== undefined) await sql`UPDATE sqlite_sequence SET seq = ${counter} WHERE name = ${table}`.execute(db);
  for (const index of schema.filter((row) => row.type === "index")) {
    await sql.raw(tenantIndexSql(index.sql ?? "")).execute(db);
  }
  // Global readers page by position (the rowid): one tenant's events in that order, by this index.
  if (table === "events") {
    await db.schema.createIndex("events_tenant_position").on("events").columns([TENANT_COLUMN, "position"]).execute();
  }
}

/**
 * A table's CREATE TABLE text as `rebuilt`, with the tenant column (unless it has one) and its keys by
 * tenant: a column's own `primary key` becomes a table constraint, every key gets the tenant second.
 */
export function tenantTableSql(definition: string, table: string, rebuilt: string, hasTenant: boolean): string {
  let text = definition.replace(`CREATE TABLE "${table}"`, `CREATE TABLE "${rebuilt}"`);
  let columnKey: string | undefined;
  text = text.replace(/("[a-z_]+") (\w+) primary key(?! autoincrement)/, (_, column: string, type: string) => {
    columnKey = column;
    return `${column} ${type} not null`;
  });
  text = text.replace(/(primary key|unique) \(([^)]*)\)/g, (_, kind: string, cols: string) => {
    return `${kind} (${withTenantColumn(cols, true)})`;
  });
  if (!hasTenant) {
    // A column goes before the table's constraints, if any.
    const constraints = text.indexOf(", constraint ");
    const at = constraints === -1 ? text.lastIndexOf(")") : constraints;
    text = `${text.slice(0, at)}, "${TENANT_COLUMN}" text not null${text.slice(at)}`;
  }
  if (columnKey !== undefined) {
    const close = text.lastIndexOf(")");
    const key = `, constraint "${table}_pkey" primary key (${withTenantColumn(columnKey, true)})`;
    text = `${text.slice(0, close)}${key}${text.slice(close)}`;
  }
  return text;
}

/** An index's CREATE INDEX text with the tenant column in its key (withTenantColumn). */
export function tenantIndexSql(definition: string): string {
  const unique = definition.startsWith("CREATE UNIQUE INDEX");
  return definition.replace(/ on ("[a-z_]+") \(([^)]*)\)/, (_, table: string, cols: string) => {
    return ` on ${table} (${withTenantColumn(cols, unique)})`;
  });
}

import { type Kysely, type QueryExecutorProvider, sql } from "kysely";
import { withTenantColumn } from "../tenant-keys.ts";
import { TENANT_COLUMN } from "../tenant-scope.ts";

/** The setting naming the tenant of a connection: what the row-level security policies compare rows with. */
export const TENANT_SETTING = "palimpsest.tenant";

/**
 * `url` with TENANT_SETTING set to `tenant` in its startup options (beside any the URL has), so that
 * every connection opened from it, pooled or not (the LISTEN connection, a purge's), names its tenant
 * before its first statement at no cost per query. Poolers that drop startup options (PgBouncer) leave it
 * unset: row-level security then shows such a connection no row (see docs/tenants.md).
 */
export function withTenantSetting(url: string, tenant: string): string {
  const parsed = new URL(url);
  const own = parsed.searchParams.get("options");
  const setting = `-c ${TENANT_SETTING}=${tenant.replace(/[\\\s]/g, (c) => `\\${c}`)}`;
  parsed.searchParams.set("options", own === null ? setting : `${own} ${setting}`);
  return parsed.toString();
}

/** One index of a table, as PostgreSQL prints it, and the key constraint it backs, if any. */
interface IndexRow {
  name: string;
  definition: string;
  constraint: string | null;
  primary: boolean;
  unique: boolean;
}

/**
 * Migration 0016 on PostgreSQL for one table: the tenant column (existing rows in the `default` tenant,
 * then no default, so a write naming no tenant fails), every key and index with the tenant column as
 * withTenantColumn places it, and row-level security (confineRowsToTenant).
 */
export async function keyPostgresTableByTenant(db: Kysely<unknown>, table: string): Promise<void> {
  const t = sql.table(table);
  await sql`ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS ${sql.ref(TENANT_COLUMN)} text NOT NULL DEFAULT 'default'`.execute(
    db,
  );
  await sql`ALTER TABLE ${t} ALTER COLUMN ${sql.ref(TENANT_COLUMN)} DROP DEFAULT`.execute(db);
  const indexes = await sql<IndexRow>`
    SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS definition, c.conname AS constraint,
      x.indisprimary AS primary, x.indisunique AS unique
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
    WHERE x.indrelid = cast(${table} as regclass)`.execute(db);
  for (const index of indexes.rows) {
    const match = / USING (\w+) \(([^)]*)\)/.exec(index.definition);
    const columns = match?.[2];
    if (columns === undefined) throw new Error(`migration 0016: unreadable index ${index.definition}`);
    const keyed = withTenantColumn(columns, index.unique);
    if (keyed === columns) continue;
    if (index.constraint !== null) {
      const kind = sql.raw(index.primary ? "PRIMARY KEY" : "UNIQUE");
      const name = sql.ref(index.constraint);
      await sql`ALTER TABLE ${t} DROP CONSTRAINT ${name}, ADD CONSTRAINT ${name} ${kind} (${sql.raw(keyed)})`.execute(
        db,
      );
    } else {
      await sql`DROP INDEX ${sql.ref(index.name)}`.execute(db);
      await sql.raw(index.definition.replace(`(${columns})`, `(${keyed})`)).execute(db);
    }
  }
  await confineRowsToTenant(db, table);
}

/**
 * Row-level security on `table`, enabled and forced (the owner is subject too; only superusers and
 * BYPASSRLS roles are not), with one policy letting a connection read and write the rows of the tenant its
 * TENANT_SETTING names, and none when it names none.
 */
export async function confineRowsToTenant(db: QueryExecutorProvider, table: string): Promise<void> {
  const t = sql.table(table);
  const tenant = sql`${sql.ref(TENANT_COLUMN)} = current_setting(${sql.lit(TENANT_SETTING)}, true)`;
  await sql`ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY`.execute(db);
  await sql`DROP POLICY IF EXISTS palimpsest_tenant ON ${t}`.execute(db);
  await sql`CREATE POLICY palimpsest_tenant ON ${t} USING (${tenant}) WITH CHECK (${tenant})`.execute(db);
}

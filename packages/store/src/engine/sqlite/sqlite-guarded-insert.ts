import { type CompiledQuery, type QueryExecutorProvider, type RawBuilder, sql } from "kysely";
import type { GuardedInsert } from "../dialect.ts";
import type { GuardedWrite } from "../guarded-write.ts";

/** SQLite's limit on one statement's parameters (since 3.32). */
const MAX_PARAMETERS = 32_766;

/**
 * SQLite's insertUnderGuard: the guard, then multi-row INSERTs (each under the parameter limit), in the
 * guarded write's `BEGIN IMMEDIATE` transaction, committed only when the guard changed a row; whether it wrote.
 */
export function sqliteInsertUnderGuard(
  db: QueryExecutorProvider,
  writeGuarded: GuardedWrite,
  guard: RawBuilder<unknown>,
  insert: GuardedInsert,
): Promise<boolean> {
  const names = sql.join(insert.columns.map((c) => sql.ref(c.name)));
  const perInsert = Math.max(1, Math.floor(MAX_PARAMETERS / insert.columns.length));
  const inserts: CompiledQuery[] = [];
  for (let start = 0; start < insert.rows.length; start += perInsert) {
    const rows = insert.rows.slice(start, start + perInsert).map((row) => sql`(${sql.join(row)})`);
    inserts.push(sql`INSERT INTO ${sql.table(insert.table)} (${names}) VALUES ${sql.join(rows)}`.compile(db));
  }
  return writeGuarded(guard.compile(db), inserts);
}

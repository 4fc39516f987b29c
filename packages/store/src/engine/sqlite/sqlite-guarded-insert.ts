import { CompiledQuery, type QueryExecutorProvider, type RawBuilder } from "kysely";
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
  const into = `INSERT INTO "${insert.table}" (${insert.columns.map((c) => `"${c.name}"`).join(", ")}) VALUES `;
  const placeholders = `(${insert.columns.map(() => "?").join(", ")})`;
  const perInsert = Math.max(1, Math.floor(MAX_PARAMETERS / insert.columns.length));
  const inserts: CompiledQuery[] = [];
  for (let start = 0; start < insert.rows.length; start += perInsert) {
    const rows = insert.rows.slice(start, start + perInsert);
    // Written out, not built as kysely nodes: the same text for a batch size (the prepared-statement cache hits).
    const text = into + Array.from(rows, () => placeholders).join(", ");
    inserts.push(CompiledQuery.raw(text, rows.flat()));
  }
  return writeGuarded(guard.compile(db), inserts);
}

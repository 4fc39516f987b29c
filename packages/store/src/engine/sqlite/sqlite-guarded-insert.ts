import { CompiledQuery, type QueryExecutorProvider, type RawBuilder } from "kysely";
import type { GuardedInsert } from "../dialect.ts";
import type { GuardedWrite } from "../guarded-write.ts";

/**
 * Rows per INSERT: far below SQLite's 32,766 parameters, and a statement the adapter's cache keeps small
 * (a prepared INSERT of 4,000 rows takes about 3 MB).
 */
const ROWS_PER_INSERT = 500;

/**
 * SQLite's insertUnderGuard: the guard, then multi-row INSERTs (ROWS_PER_INSERT rows each), in the
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
  const inserts: CompiledQuery[] = [];
  for (let start = 0; start < insert.rows.length; start += ROWS_PER_INSERT) {
    const rows = insert.rows.slice(start, start + ROWS_PER_INSERT);
    // Written out, not built as kysely nodes: the same text for a batch size (the prepared-statement cache hits).
    const text = into + Array.from(rows, () => placeholders).join(", ");
    inserts.push(CompiledQuery.raw(text, rows.flat()));
  }
  return writeGuarded(guard.compile(db), inserts);
}

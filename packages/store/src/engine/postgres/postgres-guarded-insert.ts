import { type QueryExecutorProvider, type RawBuilder, sql } from "kysely";
import type { GuardedInsert } from "../dialect.ts";

/**
 * PostgreSQL's insertUnderGuard: one statement, the guard a data-modifying CTE and the rows inserted from
 * one array per column (`unnest`: as many parameters as columns, whatever the rows) only when it returned a
 * row. A statement is atomic on its own, so a failed insert undoes the guard; whether it wrote.
 */
export async function postgresInsertUnderGuard(
  db: QueryExecutorProvider,
  guard: RawBuilder<unknown>,
  insert: GuardedInsert,
): Promise<boolean> {
  const names = insert.columns.map((c) => sql.ref(c.name));
  const arrays = insert.columns.map((c, i) => sql`${insert.rows.map((row) => row[i])}::${sql.raw(c.pgType)}[]`);
  const written = await sql`
    WITH guard AS (${guard} RETURNING 1)
    INSERT INTO ${sql.table(insert.table)} (${sql.join(names)})
    SELECT * FROM unnest(${sql.join(arrays)}) AS v(${sql.join(names)})
     WHERE EXISTS (SELECT 1 FROM guard)`.execute(db);
  return Number(written.numAffectedRows ?? 0) === insert.rows.length;
}

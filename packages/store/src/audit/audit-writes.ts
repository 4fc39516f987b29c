import type { GlobalCheckpoint } from "@palimpsest/core";
import type { AuditFacts } from "@palimpsest/projections";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { AUDIT_ROW_TABLES, type AuditRowTable, auditRows } from "./audit-rows.ts";
import type { AuditDatabase } from "./audit-source.ts";

/** The projector's row in `audit_checkpoints`. */
export const AUDIT_PROJECTOR = "audit";

/** Rows per INSERT statement: far below both engines' bound-parameter limits (20 columns at most). */
const ROWS_PER_INSERT = 500;

/** The compare-and-set that moves the audit checkpoint from `from` to `to` (changes no row if it moved). */
export function moveCheckpoint(db: Kysely<AuditDatabase>, from: GlobalCheckpoint, to: GlobalCheckpoint): CompiledQuery {
  return db
    .updateTable("audit_checkpoints")
    .set({ checkpoint: to })
    .where("projector", "=", AUDIT_PROJECTOR)
    .where("checkpoint", "=", from)
    .compile();
}

/**
 * The statements that write facts into the audit tables. Writing the same facts twice changes nothing:
 * row inserts skip rows already there, and a session row merges what it learns (its start, its hand-off,
 * the highest seq seen), whichever order pages bring a session's events in.
 */
export function writeFactStatements(db: Kysely<AuditDatabase>, facts: AuditFacts): CompiledQuery[] {
  const rows = auditRows(facts);
  const statements = chunks(rows.audit_sessions).map((chunk) =>
    db
      .insertInto("audit_sessions")
      .values(chunk)
      .onConflict((oc) =>
        oc.column("session_id").doUpdateSet({
          started_at: keep("started_at"),
          model: keep("model"),
          parent_session_id: keep("parent_session_id"),
          relation: keep("relation"),
          parent_at_seq: keep("parent_at_seq"),
          handed_off_to: keep("handed_off_to"),
          handed_off_at: keep("handed_off_at"),
          handed_off_seq: keep("handed_off_seq"),
          last_seq: sql<number>`CASE WHEN excluded.last_seq > audit_sessions.last_seq THEN excluded.last_seq ELSE audit_sessions.last_seq END`,
        }),
      )
      .compile(),
  );
  for (const table of AUDIT_ROW_TABLES)
    if (table !== "audit_sessions") statements.push(...inserts(db, table, rows[table]));
  return statements;
}

/** An upsert's value for a session column: what this page learned, else what the row already knew. */
function keep(column: string) {
  return sql<never>`COALESCE(excluded.${sql.ref(column)}, audit_sessions.${sql.ref(column)})`;
}

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT)
    out.push(rows.slice(start, start + ROWS_PER_INSERT));
  return out;
}

/** The statements that empty every audit row table (a rebuild's first step). */
export function clearStatements(db: Kysely<AuditDatabase>): CompiledQuery[] {
  return AUDIT_ROW_TABLES.map((table) => db.deleteFrom(table).compile());
}

function inserts(db: Kysely<AuditDatabase>, table: AuditRowTable, rows: readonly object[]): CompiledQuery[] {
  return chunks(rows).map((chunk) =>
    db
      .insertInto(table)
      // biome-ignore lint/suspicious/noExplicitAny: kysely cannot relate a table chosen at run time to its row type
      .values(chunk as any)
      .onConflict((oc) => oc.doNothing())
      .compile(),
  );
}

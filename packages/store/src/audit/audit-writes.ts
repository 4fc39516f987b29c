import type { GlobalCheckpoint } from "@palimpsest/core";
import type { AuditFacts } from "@palimpsest/projections";
import type { CompiledQuery, Kysely } from "kysely";
import type { StoreDatabase } from "../engine/database-schema.ts";
import { AUDIT_ROW_TABLES, type AuditRowTable, auditRows } from "./audit-rows.ts";

/** The projector's row in `audit_checkpoints`. */
export const AUDIT_PROJECTOR = "audit";

/** Rows per INSERT statement: far below both engines' bound-parameter limits (18 columns at most). */
const ROWS_PER_INSERT = 500;

/** The compare-and-set that moves the audit checkpoint from `from` to `to` (changes no row if it moved). */
export function moveCheckpoint(db: Kysely<StoreDatabase>, from: GlobalCheckpoint, to: GlobalCheckpoint): CompiledQuery {
  return db
    .updateTable("audit_checkpoints")
    .set({ checkpoint: to })
    .where("projector", "=", AUDIT_PROJECTOR)
    .where("checkpoint", "=", from)
    .compile();
}

/**
 * The statements that write facts into the audit tables. Inserts skip rows already there, so writing the
 * same facts twice changes nothing; hand-offs and last seqs of sessions started in earlier facts are
 * applied as updates.
 */
export function writeFactStatements(db: Kysely<StoreDatabase>, facts: AuditFacts): CompiledQuery[] {
  const rows = auditRows(facts);
  const statements = AUDIT_ROW_TABLES.flatMap((table) => inserts(db, table, rows[table]));
  for (const h of facts.handOffs) {
    statements.push(
      db
        .updateTable("audit_sessions")
        .set({ handed_off_to: h.toSessionId, handed_off_at: h.handedOffAt, handed_off_seq: h.seq })
        .where("session_id", "=", h.sessionId)
        .compile(),
    );
  }
  for (const [sessionId, lastSeq] of facts.lastSeqs) {
    statements.push(
      db
        .updateTable("audit_sessions")
        .set({ last_seq: lastSeq })
        .where("session_id", "=", sessionId)
        .where("last_seq", "<", lastSeq)
        .compile(),
    );
  }
  return statements;
}

/** The statements that empty every audit row table (a rebuild's first step). */
export function clearStatements(db: Kysely<StoreDatabase>): CompiledQuery[] {
  return AUDIT_ROW_TABLES.map((table) => db.deleteFrom(table).compile());
}

function inserts(db: Kysely<StoreDatabase>, table: AuditRowTable, rows: readonly object[]): CompiledQuery[] {
  const out: CompiledQuery[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    out.push(
      db
        .insertInto(table)
        // biome-ignore lint/suspicious/noExplicitAny: kysely cannot relate a table chosen at run time to its row type
        .values(rows.slice(start, start + ROWS_PER_INSERT) as any)
        .onConflict((oc) => oc.doNothing())
        .compile(),
    );
  }
  return out;
}

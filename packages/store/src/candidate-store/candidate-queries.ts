import type { CandidateStore, PrecompactionCandidate } from "@palimpsest/core";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import type { StoreDatabase } from "../engine/database-schema.ts";
import type { Dialect } from "../engine/dialect.ts";
import { againOnDrop, guardRead, guardStorage } from "../engine/storage-guard.ts";
import { type CandidateRow, fromRow, toRow } from "./candidate-row.ts";

/** Column types for the parameters of the conditional insert (PostgreSQL cannot infer them in a SELECT list). */
const COLUMN_TYPES: Record<keyof CandidateRow, string> = {
  session_id: "text",
  last_message_id: "text",
  prefix_hash: "text",
  system_prompt_hash: "text",
  summarizer_model: "text",
  prompt_version: "text",
  targets: "text",
  summary: "text",
  basis_view_version: "integer",
  created_at_ms: "bigint",
  summary_ms: "integer",
  aux_tokens_in: "integer",
  aux_tokens_out: "integer",
  aux_tokens_cache_read: "integer",
  aux_tokens_cache_write: "integer",
};
const COLUMNS = Object.keys(COLUMN_TYPES) as (keyof CandidateRow)[];

/** The candidate table, added to the log's tables of a handle by withCandidates. */
type CandidateTables = {
  precompaction_candidates: CandidateRow;
};

function withCandidates(db: Kysely<StoreDatabase>) {
  return db.withTables<CandidateTables>();
}

/**
 * Upserts the session's one candidate in a single statement that selects it through the session's
 * catalogue row at the candidate's basis view version: when a compaction moved the view first, or the
 * session is erased, nothing is written and this returns false. The row is read held against an erasure
 * (`dialect.shareRows`), so one in progress is waited for and then seen: an unlocked read would see the row
 * as last committed and store a candidate the erasure has already deleted.
 */
async function saveCandidateRow(
  db: Kysely<StoreDatabase>,
  dialect: Dialect,
  candidate: PrecompactionCandidate,
): Promise<boolean> {
  const row = toRow(candidate);
  const t = withCandidates(db);
  const result = await t
    .insertInto("precompaction_candidates")
    .columns(COLUMNS)
    .expression(
      dialect.shareRows(
        t
          .selectFrom("sessions")
          .select(COLUMNS.map((column) => sql`cast(${row[column]} as ${sql.raw(COLUMN_TYPES[column])})`.as(column)))
          .where("session_id", "=", row.session_id)
          .where("view_version", "=", row.basis_view_version)
          .where("erased_at", "is", null),
      ),
    )
    .onConflict((oc) =>
      oc
        .column("session_id")
        .doUpdateSet(
          Object.fromEntries(COLUMNS.map((column) => [column, sql.ref(`excluded.${column}`)])) as Partial<CandidateRow>,
        ),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The session's candidate, if one is stored. */
async function loadCandidateRow(
  db: Kysely<StoreDatabase>,
  sessionId: string,
): Promise<PrecompactionCandidate | undefined> {
  const row = await withCandidates(db)
    .selectFrom("precompaction_candidates")
    .selectAll()
    .where("session_id", "=", sessionId)
    .executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}

/** Deletes the session's candidate (a no-op when there is none). */
async function deleteCandidateRow(db: Kysely<StoreDatabase>, sessionId: string): Promise<void> {
  await withCandidates(db).deleteFrom("precompaction_candidates").where("session_id", "=", sessionId).execute();
}

/** The statement that drops the session's candidate, for a caller running it inside its own transaction. */
export function deleteCandidateQuery(db: Kysely<StoreDatabase>, sessionId: string): CompiledQuery {
  return withCandidates(db).deleteFrom("precompaction_candidates").where("session_id", "=", sessionId).compile();
}

/**
 * The CandidateStore over the store's database: one candidate per session, never for a moved view. A save
 * or a delete whose connection dropped is made again (againOnDrop), as a read is: each is one statement that
 * leaves the same row, or none, however often it runs.
 */
export function candidateStore(db: Kysely<StoreDatabase>, dialect: Dialect): CandidateStore {
  return {
    saveCandidate: (candidate) =>
      guardStorage("saveCandidate", () => againOnDrop(() => saveCandidateRow(db, dialect, candidate))),
    loadCandidate: (sessionId) => guardRead("loadCandidate", () => loadCandidateRow(db, sessionId)),
    deleteCandidate: (sessionId) =>
      guardStorage("deleteCandidate", () => againOnDrop(() => deleteCandidateRow(db, sessionId))),
  };
}

import { createHash } from "node:crypto";
import type BetterSqlite3 from "better-sqlite3";
import { type CompiledQuery, type Kysely, type RawBuilder, sql } from "kysely";
import type { IndexedEvent, SearchRowsQuery, TermsRow } from "../dialect.ts";
import { EVENT_COLUMNS, type EventRow } from "../row-mapping.ts";
import { rowTerms } from "../row-terms.ts";

/** Rows inserted (or deleted) per statement while backfilling the index or erasing (two parameters each). */
const ROWS_PER_INSERT = 400;

/**
 * How often the pending terms are folded into the FTS5 table: by the append whose positions reach a
 * multiple of this, in its transaction. FTS5 writes a segment and rewrites its structure record at every
 * commit that adds to it; a fold pays that once for this many positions. So at most this many positions
 * plus one append's are pending, which a search scans beside the index (sqliteSearchRows).
 */
export const SEARCH_FOLD_POSITIONS = 64;

/** The statement adding one appended message's terms to the pending rows (sqliteIndexedText's). */
export const INSERT_PENDING_TERMS = "INSERT INTO message_search_pending (position, terms) VALUES (?, ?)";

/**
 * The pending rows of sessions not erased. An erasure deletes its session's pending rows itself; this
 * also passes over those a process from before migration 0019 left when it erased a session.
 */
const LIVE_PENDING = `SELECT p.position, p.terms FROM message_search_pending AS p
  WHERE NOT EXISTS (SELECT 1 FROM events AS e JOIN sessions AS s ON s.session_id = e.session_id AND s.tenant_id = e.tenant_id
    WHERE e.position = p.position AND s.erased_at IS NOT NULL)`;

/** The statements of a fold: every live pending row into the FTS5 table, then every row out of the pending table. */
export const FOLD_PENDING_TERMS = [
  `INSERT INTO message_search (rowid, terms) SELECT position, terms FROM (${LIVE_PENDING})`,
  "DELETE FROM message_search_pending",
] as const;

/** Whether an append of `positions` (ascending) reaches a multiple of SEARCH_FOLD_POSITIONS: it folds. */
export function reachesFold(positions: readonly number[]): boolean {
  const [first, last] = [positions[0], positions.at(-1)];
  if (first === undefined || last === undefined) return false;
  return Math.floor(last / SEARCH_FOLD_POSITIONS) > Math.floor((first - 1) / SEARCH_FOLD_POSITIONS);
}

/**
 * The index term that stands for a session in each of its rows, so a search reads the doclists of its
 * terms only where they meet its sessions' (FTS5 skips through an AND): letters and digits, as terms are.
 */
export function sessionTerm(sessionId: string): string {
  return `zs${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}`;
}

/**
 * What the FTS5 table keeps of an event of `sessionId`: its session's term, then its own terms. The session's
 * term (a hash) is made once, for all the events of a batch.
 */
export function sqliteIndexedText(sessionId: string): (terms: string) => string {
  const term = sessionTerm(sessionId);
  return (terms) => `${term} ${terms}`;
}

/**
 * Migration 0018 on SQLite (and 0022, which makes it again): an FTS5 table whose rowid is the event's
 * position, keeping no copy of the text (contentless), tokenized as core's searchTerms splits (its
 * terms, space-separated: `.`, `_` and `-` are token characters, so a compound such as `app.ts` stays one
 * token). Its deletes are secure: an erasure's FTS5 `delete` command, given the terms the row was indexed
 * under, takes them out of the index's pages at once. (A `contentless_delete=1` table, which 0018 made
 * before 0022, deletes by marking the row's id only: its terms stayed in the pages, listed by fts5vocab,
 * until a merge of their segment.)
 */
export async function createSqliteSearchIndex(db: Kysely<unknown>, fill: () => Promise<void>): Promise<void> {
  await sql`CREATE VIRTUAL TABLE message_search USING fts5(terms, content='',
    tokenize="unicode61 remove_diacritics 0 tokenchars '._-'")`.execute(db);
  await sql`INSERT INTO message_search (message_search, rank) VALUES ('secure-delete', 1)`.execute(db);
  await fill();
}

/**
 * Migration 0022 on SQLite: the index made again as createSqliteSearchIndex makes it, every message of a
 * session not erased indexed by `fill` (the pending terms with them, so none is left to fold). The old
 * table, erased terms among its pages, is dropped with `secure_delete` on: the pages it frees are zeroed.
 */
export async function remakeSqliteSearchIndex(db: Kysely<unknown>, fill: () => Promise<void>): Promise<void> {
  const [setting] = (await sql<{ secure_delete: number }>`PRAGMA secure_delete`.execute(db)).rows;
  await sql`PRAGMA secure_delete = ON`.execute(db);
  try {
    await sql`DROP TABLE message_search`.execute(db);
  } finally {
    await sql.raw(`PRAGMA secure_delete = ${setting?.secure_delete === 1 ? "ON" : "OFF"}`).execute(db);
  }
  await sql`DELETE FROM message_search_pending`.execute(db);
  await createSqliteSearchIndex(db, fill);
}

/** The backfill: each event's terms added under its position. */
export async function indexSqliteTerms(db: Kysely<unknown>, rows: readonly IndexedEvent[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const values = sql.join(
      rows
        .slice(start, start + ROWS_PER_INSERT)
        .map((r) => sql`(${r.position}, ${sqliteIndexedText(r.sessionId)(r.terms)})`),
    );
    await sql`INSERT INTO message_search (rowid, terms) VALUES ${values}`.execute(db);
  }
}

/**
 * Migration 0019 on SQLite: the terms appended since the last fold, one row per message, keyed by the
 * event's position, holding what the FTS5 table will (sqliteIndexedText). Appends write here, so an append
 * does not pay FTS5's per-commit segment write; SEARCH_FOLD_POSITIONS says when they move to the index.
 */
export async function createSqliteSearchPending(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE message_search_pending (position INTEGER PRIMARY KEY, terms TEXT NOT NULL)`.execute(db);
}

/**
 * An erasure's statements: the session's messages taken out of the index and its pending terms deleted.
 * A contentless FTS5 table forgets a row by the FTS5 `delete` command given the text it indexed, which
 * `rows` (the session's events as stored, read under the erasure's lock) give again (rowTerms, as the
 * append and the backfill computed them); only the rows the index holds are deleted (not those still
 * pending), so nothing is taken from it that it does not hold. With `secure-delete` on, the terms leave
 * the index's pages in the same statement.
 */
export function forgetSqliteSearch<DB>(
  db: Kysely<DB>,
  tenant: string,
  sessionId: string,
  rows: readonly TermsRow[],
): CompiledQuery[] {
  const statements: CompiledQuery[] = [];
  const indexed = rows.flatMap((row) => rowTerms(row) ?? []);
  const text = sqliteIndexedText(sessionId);
  for (let start = 0; start < indexed.length; start += ROWS_PER_INSERT) {
    const values = sql.join(
      indexed.slice(start, start + ROWS_PER_INSERT).map((r) => sql`(cast(${r.position} as integer), ${text(r.terms)})`),
    );
    statements.push(
      sql`INSERT INTO message_search (message_search, rowid, terms)
        SELECT 'delete', v.position, v.terms FROM (SELECT column1 AS position, column2 AS terms FROM (VALUES ${values})) AS v
        WHERE EXISTS (SELECT 1 FROM message_search AS m WHERE m.rowid = v.position)`.compile(db),
    );
  }
  const positions = sql`(SELECT position FROM events WHERE tenant_id = ${tenant} AND session_id = ${sessionId})`;
  statements.push(sql`DELETE FROM message_search_pending WHERE position IN ${positions}`.compile(db));
  return statements;
}

/**
 * Drops ANALYZE's samples of the index's page keys, when ANALYZE has run on the file (SQLite builds with
 * STAT4 here: `sqlite_stat4` keeps sample keys of every index, and the keys of `message_search_idx` are
 * prefixes of words). An erasure runs it in its transaction and the purge after merging the index, so no
 * sample keeps a prefix of an erased word; the planner loses only its figures for FTS5's own lookups.
 */
export function forgetSearchSamples(database: BetterSqlite3.Database): void {
  const analyzed = database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat4'");
  if (analyzed.get() !== undefined) database.prepare("DELETE FROM sqlite_stat4 WHERE tbl = 'message_search_idx'").run();
}

/**
 * The search: any term's rows within the sessions' rows, ranked first by how many of the terms a row holds
 * (as the scan and PostgreSQL's ts_rank rank), then by BM25 (higher is better), then newest. BM25 alone
 * would put a short message holding two common words before a long one holding the rare compound asked
 * for (its length normalization); the rank is the count of terms held plus BM25 squashed below 1. The
 * pending rows not yet folded (at most about SEARCH_FOLD_POSITIONS) are scanned beside the index, their
 * terms matched whole; they have no BM25, so they rank by the terms they hold alone. A search writes
 * nothing: it never waits for the write lock another process holds.
 */
export function sqliteSearchRows(search: SearchRowsQuery): RawBuilder<EventRow & { rank: number }> {
  // Terms (letters and digits, joined by . _ or -) and session terms: quoted, none is read as an FTS5 operator.
  const sessions = search.sessionIds.map((id) => `"${sessionTerm(id)}"`).join(" OR ");
  const within = (terms: readonly string[]) => `(${sessions}) AND (${terms.map((t) => `"${t}"`).join(" OR ")})`;
  const columns = sql.join(EVENT_COLUMNS.map((c) => sql.ref(`e.${c}`)));
  // A pending row holds a term when its space-separated terms do (terms hold no space).
  const pendingHolds = (term: string) => sql`instr(pending.words, ${` ${term} `}) > 0`;
  // Each term's rows of the sessions, indexed or pending, read once each (materialized), as the hits are.
  const termRows = search.terms.map(
    (term, i) =>
      sql`, ${sql.ref(`t${i}`)} AS MATERIALIZED (SELECT rowid FROM message_search WHERE message_search MATCH ${within([term])}
        UNION ALL SELECT position FROM pending WHERE ${pendingHolds(term)})`,
  );
  const held = sql.join(
    search.terms.map((_, i) => sql`(hits.position IN (SELECT rowid FROM ${sql.ref(`t${i}`)}))`),
    sql` + `,
  );
  // The index is read first, once (materialized): joined the other way, SQLite would run the MATCH again
  // for every event of the sessions.
  return sql<EventRow & { rank: number }>`
    WITH pending AS MATERIALIZED (SELECT position, ' ' || terms || ' ' AS words FROM (${sql.raw(LIVE_PENDING)})),
    hits AS MATERIALIZED (
      SELECT rowid AS position, -bm25(message_search) AS bm25 FROM message_search
      WHERE message_search MATCH ${within(search.terms)}
      UNION ALL
      SELECT position, 0 FROM pending WHERE ${sql.join(search.terms.map(pendingHolds), sql` OR `)}
    )${sql.join(termRows, sql``)},
    ranked AS (SELECT position, ${held} + bm25 / (1 + bm25) AS rank FROM hits)
    SELECT ${columns}, ranked.rank AS rank
    FROM ranked JOIN events AS e ON e.position = ranked.position
    WHERE e.tenant_id = ${search.tenant}
      AND e.session_id IN (SELECT value FROM json_each(${JSON.stringify(search.sessionIds)}))
    ORDER BY ranked.rank DESC, e.position DESC
    LIMIT ${search.limit} OFFSET ${search.offset}`;
}

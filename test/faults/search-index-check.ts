/**
 * The recall index against the log, as fault checks read it: after any crash, a session's messages are
 * indexed exactly when their events are stored (the index is written in the append's transaction, and
 * cleared in the erasure's), so the events of a session with terms and the index's rows of it name the
 * same seqs; each PostgreSQL vector, and each of SQLite's pending rows, holds its message's terms. A message an encrypting store
 * sealed is never indexed. Read with the drivers directly, on the database at `url`.
 */
import { indexedTerms, type StoredEvent } from "@palimpsest/core";
import pg from "pg";
import { SEALED_FIELD } from "../../packages/store/src/engine/row-mapping.ts";
import { sessionTerm, sqliteIndexedText } from "../../packages/store/src/engine/sqlite/sqlite-search.ts";
import { Database } from "../support/sqlite-driver.ts";

/** Where the index and each session's log (its events, read whole, opened) disagree. */
export async function searchIndexProblems(
  url: string,
  logs: ReadonlyMap<string, readonly StoredEvent[]>,
): Promise<string[]> {
  const problems: string[] = [];
  const read = url.startsWith("postgres") ? await postgresReader(url) : sqliteReader(url);
  try {
    for (const [sessionId, log] of logs) {
      const sealed = new Set(await read.sealedSeqs(sessionId));
      const expected = log.filter((e) => !sealed.has(e.seq)).flatMap((e) => indexedEvent(e));
      // Up to the last seq read: another process may have appended since.
      const last = log.at(-1)?.seq ?? 0;
      const have = (await read.indexedSeqs(sessionId)).filter((seq) => seq <= last).join(",");
      const want = expected.map((e) => e.seq).join(",");
      if (want !== have) problems.push(`${sessionId}: the search index holds seqs [${have}], its messages [${want}]`);
      for (const seq of await read.wrongVectors(sessionId, expected))
        problems.push(`${sessionId}: seq ${seq}'s search vector is not its message's terms`);
    }
  } finally {
    await read.close();
  }
  return problems;
}

/** A stored message's seq and terms, or nothing for an event without terms. */
function indexedEvent(event: StoredEvent): { seq: number; terms: string }[] {
  const terms = indexedTerms(event);
  return terms === null ? [] : [{ seq: event.seq, terms }];
}

/** What the check reads of one engine's index. */
interface IndexReader {
  /** The seqs of the session's events the index holds, ascending. */
  indexedSeqs(sessionId: string): Promise<number[]>;
  /** The seqs of the session's events stored sealed (an encrypting store's). */
  sealedSeqs(sessionId: string): Promise<number[]>;
  /**
   * The seqs whose stored terms are not the ones their message makes: PostgreSQL's vectors, SQLite's
   * pending rows (its FTS5 table keeps no text to compare).
   */
  wrongVectors(sessionId: string, expected: readonly { seq: number; terms: string }[]): Promise<number[]>;
  close(): Promise<void>;
}

async function postgresReader(url: string): Promise<IndexReader> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async indexedSeqs(sessionId) {
      const { rows } = await client.query<{ seq: number }>(
        "SELECT seq FROM events WHERE session_id = $1 AND search IS NOT NULL ORDER BY seq",
        [sessionId],
      );
      return rows.map((r) => Number(r.seq));
    },
    async sealedSeqs(sessionId) {
      const { rows } = await client.query<{ seq: number }>(
        `SELECT seq FROM events WHERE session_id = $1 AND cast(data AS jsonb) ? '${SEALED_FIELD}'`,
        [sessionId],
      );
      return rows.map((r) => Number(r.seq));
    },
    async wrongVectors(sessionId, expected) {
      if (expected.length === 0) return [];
      const { rows } = await client.query<{ seq: number }>(
        `SELECT e.seq FROM events e JOIN unnest($2::int[], $3::text[]) AS x(seq, terms) ON e.seq = x.seq
         WHERE e.session_id = $1 AND e.search IS DISTINCT FROM array_to_tsvector(string_to_array(x.terms, ' '))`,
        [sessionId, expected.map((e) => e.seq), expected.map((e) => e.terms)],
      );
      return rows.map((r) => Number(r.seq));
    },
    close: () => client.end(),
  };
}

function sqliteReader(url: string): IndexReader {
  const db = new Database(url, { readonly: true });
  const seqs = db.prepare(
    `SELECT seq FROM events WHERE session_id = ? AND (position IN
       (SELECT rowid FROM message_search WHERE message_search MATCH ?)
       OR position IN (SELECT position FROM message_search_pending)) ORDER BY seq`,
  );
  const pending = db.prepare(
    `SELECT e.seq, p.terms FROM message_search_pending AS p JOIN events AS e ON e.position = p.position
     WHERE e.session_id = ? ORDER BY e.seq`,
  );
  const sealed = db.prepare(
    `SELECT seq FROM events WHERE session_id = ? AND json_type(data, '$."${SEALED_FIELD}"') IS NOT NULL`,
  );
  return {
    indexedSeqs: async (sessionId) =>
      (seqs.all(sessionId, `"${sessionTerm(sessionId)}"`) as { seq: number }[]).map((r) => r.seq),
    sealedSeqs: async (sessionId) => (sealed.all(sessionId) as { seq: number }[]).map((r) => r.seq),
    async wrongVectors(sessionId, expected) {
      const indexed = sqliteIndexedText(sessionId);
      const want = new Map(expected.map((e) => [e.seq, indexed(e.terms)]));
      const rows = pending.all(sessionId) as { seq: number; terms: string }[];
      return rows.filter((r) => want.get(r.seq) !== r.terms).map((r) => r.seq);
    },
    close: async () => {
      db.close();
    },
  };
}

import { type CompiledQuery, type Kysely, type RawBuilder, sql } from "kysely";
import type { IndexedEvent, SearchRowsQuery } from "../dialect.ts";
import { EVENT_COLUMNS, type EventRow } from "../row-mapping.ts";

/** Events updated per statement while backfilling the index. */
const ROWS_PER_UPDATE = 500;

/**
 * The SQL of the terms in `terms` (a text column or parameter: space-separated, as core's searchTerms
 * made them) as a tsvector of exactly those lexemes:
 * not parsed again, so a compound such as `err_quokka_7731` or `3.16` stays one lexeme, as SQLite keeps it.
 */
export const termsVector = (terms: string): string => `array_to_tsvector(string_to_array(${terms}, ' '))`;

/**
 * Migration 0018 on PostgreSQL: the `search` column (no statistics: its lexemes are content), filled by
 * `fill`, then its GIN index, built once over what was filled.
 */
export async function createPostgresSearchIndex(db: Kysely<unknown>, fill: () => Promise<void>): Promise<void> {
  await sql`ALTER TABLE events ADD COLUMN search tsvector`.execute(db);
  await sql`ALTER TABLE events ALTER COLUMN search SET STATISTICS 0`.execute(db);
  // Row-level security forced on the owner (migration 0016) would confine the fill to the tenant the
  // migrating connection names: lifted for it, so every tenant's messages are indexed, and forced again
  // after, in the migration's transaction (a failure leaves it forced).
  const forced = await sql<{ name: string }>`SELECT relname AS name FROM pg_class
    WHERE oid IN (to_regclass('events'), to_regclass('sessions')) AND relforcerowsecurity`.execute(db);
  for (const { name } of forced.rows) await sql`ALTER TABLE ${sql.table(name)} NO FORCE ROW LEVEL SECURITY`.execute(db);
  await fill();
  for (const { name } of forced.rows) await sql`ALTER TABLE ${sql.table(name)} FORCE ROW LEVEL SECURITY`.execute(db);
  await sql`CREATE INDEX events_search ON events USING gin (search)`.execute(db);
}

/** The backfill: each event's terms as its `search` vector (matched by session and position: a partitioned log prunes by session). */
export async function indexPostgresTerms(db: Kysely<unknown>, rows: readonly IndexedEvent[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_UPDATE) {
    const values = sql.join(
      rows
        .slice(start, start + ROWS_PER_UPDATE)
        .map((r) => sql`(cast(${r.sessionId} as text), cast(${r.position} as bigint), cast(${r.terms} as text))`),
    );
    await sql`UPDATE events SET search = ${sql.raw(termsVector("v.terms"))}
      FROM (SELECT column1 AS session_id, column2 AS position, column3 AS terms FROM (VALUES ${values}) AS vals) AS v
      WHERE events.session_id = v.session_id AND events.position = v.position`.execute(db);
  }
}

/** An erasure's statement: the session's vectors cleared (the purge then rewrites the index without them). */
export function forgetPostgresSearch<DB>(db: Kysely<DB>, tenant: string, sessionId: string): CompiledQuery[] {
  return [
    sql`UPDATE events SET search = NULL
    WHERE tenant_id = ${tenant} AND session_id = ${sessionId} AND search IS NOT NULL`.compile(db),
  ];
}

/**
 * The search: any term's events of the sessions, ranked first by how many of the terms a message holds
 * (as SQLite and the scan rank), then by ts_rank normalized by the message's length (a short message
 * holding the words before a long one holding them among many), squashed below 1, then newest.
 */
export function postgresSearchRows(search: SearchRowsQuery): RawBuilder<EventRow & { rank: number }> {
  // Each term is letters and digits joined by . _ or - (SEARCH_TERM): quoted as a lexeme, it needs no
  // escaping, and the cast to tsquery takes the lexemes as written (to_tsquery would parse them again).
  const lexeme = (term: string) => `'${term}'`;
  const query = search.terms.map(lexeme).join(" | ");
  const held = sql.join(
    search.terms.map((term) => sql`(events.search @@ cast(${lexeme(term)} AS tsquery))::int`),
    sql` + `,
  );
  const columns = sql.join(EVENT_COLUMNS.map((c) => sql.ref(`events.${c}`)));
  return sql<EventRow & { rank: number }>`
    SELECT ${columns}, ${held} + r.rank / (1 + r.rank) AS rank
    FROM events, cast(${query} AS tsquery) AS q, LATERAL (SELECT ts_rank(events.search, q, 1) AS rank) AS r
    WHERE events.tenant_id = ${search.tenant} AND events.session_id = ANY(${[...search.sessionIds]}::text[])
      AND events.search @@ q
    ORDER BY rank DESC, events.position DESC
    LIMIT ${search.limit} OFFSET ${search.offset}`;
}

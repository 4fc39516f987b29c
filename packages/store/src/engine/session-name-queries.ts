import { checkId } from "@palimpsest/core";
import { type Kysely, sql } from "kysely";
import type { StoreDatabase } from "./database-schema.ts";
import type { Dialect } from "./dialect.ts";
import { nameOfStart } from "./session-name.ts";

/** The ids of the sessions named `name` (by the sessions_name index); ValidationError for a non-id name. */
export async function sessionIdsNamed(db: Kysely<StoreDatabase>, name: unknown): Promise<string[]> {
  checkId(name, "name");
  const rows = await db
    .selectFrom("sessions")
    .select("session_id")
    .where("name", "=", name as string)
    .orderBy("session_id")
    .execute();
  return rows.map((r) => r.session_id);
}

/**
 * Migration 0011's backfill: every session gets the name of its start event (seq 1), as nameOfStart
 * gives it. The SQL path reads the external id with the dialect's JSON functions; events whose text holds
 * a `\u` escape (a NUL or a lone surrogate that PostgreSQL's JSON functions refuse, among rarer harmless
 * ones) are named by nameOfStart itself, one by one.
 */
export async function backfillSessionNames(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const unicodeEscape = "\\u";
  const field = (path: readonly string[]) => dialect.jsonPath("e.data", path);
  // The JSON is read only in SET, evaluated after WHERE has left out the escaped rows: the order in which
  // PostgreSQL evaluates a WHERE clause's conditions is the planner's.
  await sql`UPDATE sessions SET name = CASE WHEN COALESCE(${field(["parent", "relation"])}, '') NOT IN ('handoff', 'fork')
        THEN NULLIF(${field(["source", "externalId"])}, '') END
      FROM events e
      WHERE e.session_id = sessions.session_id AND e.seq = 1 AND e.type = 'session.started'
        AND ${dialect.textPosition("e.data", unicodeEscape)} = 0`.execute(db);
  const contains = sql`${dialect.textPosition("data", unicodeEscape)} > 0`;
  const escaped = await sql<{ session_id: string; data: string }>`SELECT session_id, data FROM events
    WHERE seq = 1 AND type = 'session.started' AND ${contains}`.execute(db);
  for (const row of escaped.rows) {
    const name = nameOfStart(JSON.parse(row.data));
    if (name !== null) {
      await sql`UPDATE sessions SET name = ${name} WHERE session_id = ${row.session_id}`.execute(db);
    }
  }
}

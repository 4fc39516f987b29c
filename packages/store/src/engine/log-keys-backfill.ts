import { type DomainEvent, logKeysOf } from "@palimpsest/core";
import { type Kysely, sql } from "kysely";
import type { StoreDatabase } from "./database-schema.ts";

/** Events read per page while backfilling, and key rows per insert (two parameters a row). */
const PAGE = 2_000;
const ROWS_PER_INSERT = 400;

/** The event kinds that add log keys (see core's logKeysOf). */
const KEYED_TYPES = ["message.appended", "messages.superseded", "turn.completed"] as const;

/**
 * Fills `log_keys` from the events already in the log (migration 0014), page by page in global order so a
 * long log is never held in memory; an erased session's skeletons are passed over (it takes no more
 * writes). Keys already there are kept, so running it again changes nothing.
 */
export async function backfillLogKeys(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<StoreDatabase>;
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom("events as e")
      .innerJoin("sessions as s", "s.session_id", "e.session_id")
      .select(["e.position", "e.session_id", "e.type", sql<string>`e.data`.as("data")])
      .where("e.position", ">", after)
      .where("e.type", "in", KEYED_TYPES)
      .where("s.erased_at", "is", null)
      .orderBy("e.position")
      .limit(PAGE)
      .execute();
    const keys = rows.flatMap((row) => {
      const data: unknown = typeof row.data === "string" ? JSON.parse(row.data) : row.data;
      return logKeysOf({ type: row.type, data } as DomainEvent).map((key) => ({ session_id: row.session_id, key }));
    });
    for (let start = 0; start < keys.length; start += ROWS_PER_INSERT) {
      await db
        .insertInto("log_keys")
        .values(keys.slice(start, start + ROWS_PER_INSERT))
        .onConflict((oc) => oc.columns(["session_id", "key"]).doNothing())
        .execute();
    }
    if (rows.length < PAGE) return;
    after = Number(rows.at(-1)?.position);
  }
}

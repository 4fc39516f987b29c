import { sql } from "kysely";
import { type GlobalHead, type GlobalLogReader, positionOfCheckpoint, type VisibilityWait } from "../global-log.ts";
import { EVENT_COLUMNS } from "../row-mapping.ts";

/**
 * SQLite: one writer at a time, so commit order is position order; the checkpoint is the last position
 * read, in decimal.
 */
export const readSqliteGlobalLog: GlobalLogReader = async (db, after, limit) => {
  const from = positionOfCheckpoint(after);
  const rows = await db
    .selectFrom("events")
    .select(EVENT_COLUMNS)
    .where("position", ">", from)
    .orderBy("position")
    .$if(limit !== undefined, (qb) => qb.limit(limit ?? 0))
    .execute();
  const last = rows.at(-1);
  return { rows, checkpoint: last === undefined ? after : String(last.position) };
};

/** SQLite: commits are visible to global readers as soon as they are made. */
export const sqliteVisibilityWait: VisibilityWait = async () => true;

/** SQLite: the last position. */
export const sqliteGlobalHead: GlobalHead = async (db) => {
  const row = await db.selectFrom("events").select(sql<number | null>`max(position)`.as("last")).executeTakeFirst();
  return row?.last == null ? "" : String(row.last);
};

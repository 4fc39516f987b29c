import { sql } from "kysely";
import { foreignCheckpoint, type GlobalHead, type GlobalLogReader, type VisibilityWait } from "../global-log.ts";
import { EVENT_COLUMNS } from "../row-mapping.ts";

/**
 * PostgreSQL, as Emmett reads it: an append's xid is taken before its events get positions, so two
 * concurrent appends can commit in xid order different from position order. Rows are read in
 * (transaction_id, position) order, only below the oldest open transaction (every xid under it has
 * finished), so a row that becomes visible later always sorts after every row already read. The
 * checkpoint is `<xid>:<position>` of the last row read.
 */
export const readPostgresGlobalLog: GlobalLogReader = async (db, after, limit) => {
  const cursor = /^(\d+):(\d+)$/.exec(after);
  if (after !== "" && cursor === null) throw foreignCheckpoint(after, "<xid>:<position>");
  const rows = await db
    .selectFrom("events")
    .select(EVENT_COLUMNS)
    .select(sql<string>`transaction_id::text`.as("xid"))
    .where(sql<boolean>`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`)
    .$if(cursor !== null, (qb) =>
      qb.where(sql<boolean>`(transaction_id, position) > (${cursor?.[1]}::xid8, ${cursor?.[2]}::bigint)`),
    )
    .orderBy(sql`transaction_id`)
    .orderBy("position")
    .$if(limit !== undefined, (qb) => qb.limit(limit ?? 0))
    .execute();
  const last = rows.at(-1);
  return { rows, checkpoint: last === undefined ? after : `${last.xid}:${last.position}` };
};

/** Longest pause between two checks of the barrier, in ms. */
const MAX_VISIBILITY_POLL_MS = 200;

/**
 * PostgreSQL: finds the newest committed xid of the store's tenant still hidden by the barrier (rows at
 * or above the oldest open transaction), then waits, backing off, until the barrier has passed it.
 */
export const postgresVisibilityWait: VisibilityWait = async (db, timeoutMs) => {
  // Built with kysely, so TenantScope names the tenant: the (tenant_id, transaction_id, position) index
  // then finds the newest rows; raw SQL without it read every tenant's events (10M rows: 400 ms).
  const hidden = await db
    .selectFrom("events")
    .select(sql<string | null>`max(transaction_id)::text`.as("xid"))
    .where(sql<boolean>`transaction_id >= pg_snapshot_xmin(pg_current_snapshot())`)
    .executeTakeFirst();
  const xid = hidden?.xid ?? null;
  if (xid === null) return true;
  const deadline = Date.now() + timeoutMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, MAX_VISIBILITY_POLL_MS)) {
    const passed = await sql<{ passed: boolean }>`
      SELECT pg_snapshot_xmin(pg_current_snapshot()) > ${xid}::xid8 AS passed`.execute(db);
    if (passed.rows[0]?.passed === true) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
  }
};

/** PostgreSQL: the last row below the visibility barrier in (transaction_id, position) order. */
export const postgresGlobalHead: GlobalHead = async (db) => {
  const row = await db
    .selectFrom("events")
    .select([sql<string>`transaction_id::text`.as("xid"), "position"])
    .where(sql<boolean>`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`)
    .orderBy(sql`transaction_id`, "desc")
    .orderBy("position", "desc")
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? "" : `${row.xid}:${row.position}`;
};

import { type Kysely, sql } from "kysely";
import type { Dialect } from "../engine/dialect.ts";
import type { StoreFeature } from "../engine/store-feature.ts";
import { ERASED_FAILURE, erasedOpenFields } from "./handoff-rules.ts";
import type { HandoffTables } from "./handoff-table.ts";

/** The statuses of a hand-off that are still open: at most one per source session (a partial unique index). */
export const OPEN_STATUSES = sql<boolean>`status in ('pending', 'claimed')`;

/**
 * Migration 0004: the durable hand-off queue. One row per requested hand-off; times are epoch
 * milliseconds (the database's clock unless a test injects one). The queue is claimed across sessions, so
 * on a distributed PostgreSQL it is a reference table (Citus) or stays on the coordinator, not sharded.
 */
async function createHandoffsTable(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ms = dialect.types.epochMs;
  await db.schema
    .createTable("handoffs")
    .addColumn("handoff_id", "text", (c) => c.primaryKey())
    .addColumn("source_session_id", "text", (c) => c.notNull())
    .addColumn("successor_session_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("target", "text")
    .addColumn("reason", "text")
    .addColumn("claimed_by", "text")
    .addColumn("claim_token", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("lease_expires_at_ms", ms)
    .addColumn("failure_reason", "text")
    .addColumn("created_at_ms", ms, (c) => c.notNull())
    .addColumn("updated_at_ms", ms, (c) => c.notNull())
    .addCheckConstraint("handoffs_status", sql`status in ('pending', 'claimed', 'completed', 'failed')`)
    .execute();
  await db.schema
    .createIndex("handoffs_one_open")
    .on("handoffs")
    .column("source_session_id")
    .unique()
    .where(OPEN_STATUSES)
    .execute();
  await db.schema.createIndex("handoffs_queue").on("handoffs").columns(["status", "created_at_ms"]).execute();
}

/**
 * Migration 0007: `completion_started_at_ms`, set (under the claim) when a completion begins, after which
 * the hand-off can only complete; and the claim's order over the open rows as partial indexes, so a claim
 * walks the open rows oldest first (all of them, or one target's) instead of sorting every pending row.
 */
async function addHandoffCompletion(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ms = dialect.types.epochMs;
  await db.schema.alterTable("handoffs").addColumn("completion_started_at_ms", ms).execute();
  await db.schema
    .createIndex("handoffs_open_order")
    .on("handoffs")
    .columns(["created_at_ms", "handoff_id"])
    .where(OPEN_STATUSES)
    .execute();
  await db.schema
    .createIndex("handoffs_open_target_order")
    .on("handoffs")
    .columns(["target", "created_at_ms", "handoff_id"])
    .where(OPEN_STATUSES)
    .execute();
}

/**
 * The hand-off queue's table (migrations 0004 and 0007). An erasure clears the reasons and failure texts
 * of the session's hand-offs (its content here) and fails its open ones.
 */
export const handoffFeature: StoreFeature = {
  name: "handoff",
  migrations: (dialect) => ({
    "0004_handoffs": { up: (db: Kysely<unknown>) => createHandoffsTable(db, dialect) },
    "0007_handoff_completion": { up: (db: Kysely<unknown>) => addHandoffCompletion(db, dialect) },
  }),
  eraseStatements(store, _dialect, sessionId, now) {
    const db = store.withTables<HandoffTables>();
    return [
      db
        .updateTable("handoffs")
        .set({
          reason: null,
          failure_reason: sql<string | null>`CASE WHEN failure_reason IS NULL THEN NULL ELSE ${ERASED_FAILURE} END`,
        })
        .where("source_session_id", "=", sessionId)
        .compile(),
      // An open hand-off of an erased session can never seal it: it fails now (a claimer's next step is
      // ClaimLost), unless its completion began, after which a hand-off can only complete.
      db
        .updateTable("handoffs")
        .set(erasedOpenFields(Date.parse(now)))
        .where("source_session_id", "=", sessionId)
        .where(OPEN_STATUSES)
        .where("completion_started_at_ms", "is", null)
        .compile(),
    ];
  },
  contentColumns: { handoffs: ["reason", "failure_reason"] },
};

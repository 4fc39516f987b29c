import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine/engine-adapter.ts";

/** The statuses of a hand-off that are still open: at most one per source session (a partial unique index). */
export const OPEN_STATUSES = sql<boolean>`status in ('pending', 'claimed')`;

/**
 * Migration 0004: the durable hand-off queue. One row per requested hand-off; times are epoch
 * milliseconds (the database's clock unless a test injects one). The queue is claimed across sessions, so
 * on a distributed PostgreSQL it is a reference table (Citus) or stays on the coordinator, not sharded.
 */
export async function createHandoffsTable(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const ms = engine === "postgres" ? "bigint" : "integer";
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
export async function addHandoffCompletion(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const ms = engine === "postgres" ? "bigint" : "integer";
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

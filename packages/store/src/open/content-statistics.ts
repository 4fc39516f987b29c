import type { Kysely, Migration } from "kysely";
import type { Dialect } from "../engine/dialect.ts";
import type { ContentColumns } from "../engine/store-feature.ts";

/**
 * The columns holding session content or a hash of it when migration 0015 was written, by table: the
 * log's and every feature's `contentColumns` as they stood then. A content column added later gets no
 * statistics in the migration that adds it (test/runtime/purge-erased.test.ts checks every declared one).
 */
const CONTENT_COLUMNS_0015: ContentColumns = {
  events: ["data", "content_hash"],
  snapshots: ["state", "checksum"],
  idempotency_keys: ["content_hash"],
  precompaction_candidates: ["summary", "prefix_hash", "system_prompt_hash"],
  handoffs: ["reason", "failure_reason"],
  mirror_entries: ["entry"],
  mirror_keys: ["summary", "last_batch"],
};

/**
 * Migration 0015: the planner gathers no statistics on the content columns (Dialect.withoutStatistics),
 * so that ANALYZE (autovacuum's included) never copies content into PostgreSQL's statistics catalog, beyond an erasure's
 * and a purge's reach; the statistics gathered before are dropped.
 */
export function contentStatisticsMigration(dialect: Dialect): Record<string, Migration> {
  return {
    "0015_content_statistics": {
      async up(db: Kysely<unknown>) {
        for (const [table, columns] of Object.entries(CONTENT_COLUMNS_0015)) {
          await dialect.withoutStatistics(db, table, columns);
        }
      },
    },
  };
}

import type { Kysely } from "kysely";
import type { StoreFeature } from "../engine/store-feature.ts";
import { deleteCandidateQuery } from "./candidate-queries.ts";

/**
 * The pre-compaction candidates' table (migration 0002; 0021 adds the summarizer's prompt-cache reads and
 * writes, null for a candidate stored before): one cached summary per session. An erasure deletes the
 * session's; its summary and the hashes of its prefix and system prompt are content.
 */
export const candidateFeature: StoreFeature = {
  name: "precompact",
  migrations: (dialect) => ({
    "0002_precompaction_candidates": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("precompaction_candidates")
          .addColumn("session_id", "text", (c) => c.primaryKey())
          .addColumn("last_message_id", "text", (c) => c.notNull())
          .addColumn("prefix_hash", "text", (c) => c.notNull())
          .addColumn("system_prompt_hash", "text", (c) => c.notNull())
          .addColumn("summarizer_model", "text", (c) => c.notNull())
          .addColumn("prompt_version", "text", (c) => c.notNull())
          .addColumn("targets", "text", (c) => c.notNull())
          .addColumn("summary", "text", (c) => c.notNull())
          .addColumn("basis_view_version", "integer", (c) => c.notNull())
          .addColumn("created_at_ms", dialect.types.epochMs, (c) => c.notNull())
          .addColumn("summary_ms", "integer", (c) => c.notNull())
          .addColumn("aux_tokens_in", "integer")
          .addColumn("aux_tokens_out", "integer")
          .execute();
      },
    },
    "0021_candidate_cache_tokens": {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable("precompaction_candidates").addColumn("aux_tokens_cache_read", "integer").execute();
        await db.schema.alterTable("precompaction_candidates").addColumn("aux_tokens_cache_write", "integer").execute();
      },
    },
  }),
  eraseStatements: (db, _dialect, sessionId) => [deleteCandidateQuery(db, sessionId)],
  contentColumns: { precompaction_candidates: ["summary", "prefix_hash", "system_prompt_hash"] },
};

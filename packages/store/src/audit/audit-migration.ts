import type { Kysely, Migration } from "kysely";
import type { Dialect } from "../engine/dialect.ts";
import type { StoreFeature } from "../engine/store-feature.ts";

/**
 * Where a fork branched off its parent (the `atSeq` of its `parent` link), on its audit_sessions row;
 * null for every other session. No backfill: forks began with this step.
 */
const auditForkPointMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("audit_sessions").addColumn("parent_at_seq", "integer").execute();
  },
};

/**
 * Of a compaction's auxiliary input tokens, those the provider read from and wrote to its prompt cache,
 * on its audit_compactions row; null when not recorded. No backfill: the events before this step never
 * record them, so a rebuild from the log leaves them null too.
 */
const auditCacheTokensMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("audit_compactions").addColumn("aux_tokens_cache_read", "integer").execute();
    await db.schema.alterTable("audit_compactions").addColumn("aux_tokens_cache_write", "integer").execute();
  },
};

/**
 * The audit read models: compactions, failures, which message each compaction took out and put in, and
 * the lineage of sessions, projected from the log by the audit projector (audit-projector.ts), which
 * keeps its place in `audit_checkpoints`. Every table but that one is keyed by `session_id` first, so the
 * schema distributes by session like the log (see log-migrations.ts); `audit_checkpoints` is a reference table.
 */
function auditMigration(dialect: Dialect): Migration {
  const { timestamp, real } = dialect.types;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("audit_checkpoints")
        .addColumn("projector", "text", (c) => c.primaryKey())
        .addColumn("checkpoint", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("audit_sessions")
        .addColumn("session_id", "text", (c) => c.primaryKey())
        .addColumn("started_at", timestamp) // null until the session's start is projected
        .addColumn("model", "text")
        .addColumn("parent_session_id", "text")
        .addColumn("relation", "text")
        .addColumn("handed_off_to", "text")
        .addColumn("handed_off_at", timestamp)
        .addColumn("handed_off_seq", "integer")
        .addColumn("last_seq", "integer", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("audit_sessions_parent").on("audit_sessions").column("parent_session_id").execute();
      await db.schema
        .createIndex("audit_sessions_handed_off_to")
        .on("audit_sessions")
        .column("handed_off_to")
        .execute();

      await db.schema
        .createTable("audit_compactions")
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("compaction_id", "text", (c) => c.notNull())
        .addColumn("occurred_at", timestamp, (c) => c.notNull())
        .addColumn("mode", "text", (c) => c.notNull())
        .addColumn("trigger", "text", (c) => c.notNull())
        .addColumn("policy", "text", (c) => c.notNull())
        .addColumn("profile", "text")
        .addColumn("summarizer_model", "text")
        .addColumn("prompt_version", "text")
        .addColumn("targets", "integer", (c) => c.notNull())
        .addColumn("replacements", "integer", (c) => c.notNull())
        .addColumn("tokens_before", "integer", (c) => c.notNull())
        .addColumn("tokens_after", "integer", (c) => c.notNull())
        .addColumn("tokens_reclaimed", "integer", (c) => c.notNull())
        .addColumn("aux_tokens_in", "integer")
        .addColumn("aux_tokens_out", "integer")
        .addColumn("duration_ms", real)
        .addPrimaryKeyConstraint("audit_compactions_pkey", ["session_id", "seq"])
        .execute();
      await db.schema.createIndex("audit_compactions_time").on("audit_compactions").column("occurred_at").execute();
      await db.schema.createIndex("audit_compactions_id").on("audit_compactions").column("compaction_id").execute();

      await db.schema
        .createTable("audit_failures")
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("occurred_at", timestamp, (c) => c.notNull())
        .addColumn("mode", "text", (c) => c.notNull())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("attempt", "integer", (c) => c.notNull())
        .addColumn("targets", "integer", (c) => c.notNull())
        .addColumn("retry_after_ms", "integer")
        .addPrimaryKeyConstraint("audit_failures_pkey", ["session_id", "seq"])
        .execute();
      await db.schema.createIndex("audit_failures_time").on("audit_failures").column("occurred_at").execute();

      for (const table of ["audit_supersessions", "audit_replacements"] as const) {
        let create = db.schema
          .createTable(table)
          .addColumn("session_id", "text", (c) => c.notNull())
          .addColumn("message_id", "text", (c) => c.notNull())
          .addColumn("compaction_id", "text", (c) => c.notNull())
          .addColumn("seq", "integer", (c) => c.notNull())
          .addColumn("ordinal", "integer", (c) => c.notNull());
        if (table === "audit_replacements") create = create.addColumn("kind", "text", (c) => c.notNull());
        await create.addPrimaryKeyConstraint(`${table}_pkey`, ["session_id", "message_id"]).execute();
        await db.schema.createIndex(`${table}_message`).on(table).column("message_id").execute();
        await db.schema.createIndex(`${table}_compaction`).on(table).columns(["session_id", "compaction_id"]).execute();
      }
    },
  };
}

/** The audit read models' tables (migrations 0005, 0013 and 0020), kept by the projector from the log. */
export const auditFeature: StoreFeature = {
  name: "audit",
  migrations: (dialect) => ({
    "0005_audit_read_models": auditMigration(dialect),
    "0013_audit_fork_point": auditForkPointMigration,
    "0020_audit_cache_tokens": auditCacheTokensMigration,
  }),
};

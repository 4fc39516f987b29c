import { type Kysely, sql } from "kysely";
import { type Migration, Migrator } from "kysely/migration";
import { auditForkPointMigration, auditMigration } from "../audit/audit-migration.ts";
import { addHandoffCompletion, createHandoffsTable } from "../handoff/handoff-migration.ts";
import { createMirrorTables } from "../mirror/mirror-migration.ts";
import type { StoreDatabase } from "./database-schema.ts";
import type { Engine } from "./engine-adapter.ts";
import { backfillSessionNames } from "./session-name.ts";

/**
 * The schema, one migration per step, built for one engine.
 *
 * Event data is JSON text kept verbatim: `json` (not `jsonb`) on PostgreSQL, `text` on SQLite. jsonb
 * rejects `\u0000`, reorders keys and drops duplicates; `json` keeps the exact text, so every string an
 * agent produced round-trips byte for byte.
 *
 * Distribution: everything is keyed by session and no transaction spans sessions, so on PostgreSQL every
 * key and index leads with `session_id` except the global `position` index (not unique: identity values
 * are unique by construction) and the `sessions_name` lookup (not unique: a lookup asks every shard). To
 * scale out, distribute each table by `session_id`: with Citus,
 * `SELECT create_distributed_table('events', 'session_id')` (likewise for sessions, idempotency_keys,
 * snapshots and precompaction_candidates, colocated); natively, `PARTITION BY HASH (session_id)` with the same keys.
 */
function createMigrations(engine: Engine): Record<string, Migration> {
  const pg = engine === "postgres";
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  return {
    "0001_event_log": {
      async up(db: Kysely<unknown>) {
        let events = db.schema
          .createTable("events")
          .addColumn("position", pg ? "bigint" : "integer", (c) =>
            pg ? c.notNull().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement(),
          )
          .addColumn("event_id", pg ? "uuid" : "text", (c) => c.notNull())
          .addColumn("session_id", "text", (c) => c.notNull())
          .addColumn("seq", "integer", (c) => c.notNull())
          .addColumn("type", "text", (c) => c.notNull())
          .addColumn("schema_version", "integer", (c) => c.notNull())
          .addColumn("occurred_at", timestamp, (c) => c.notNull())
          .addColumn("causation_id", "text")
          .addColumn("correlation_id", "text")
          .addColumn("idempotency_key", "text")
          .addColumn("content_hash", "text") // only appends with an idempotency key hash their events
          .addColumn("tenant_id", "text", (c) => c.notNull())
          .addColumn("data", pg ? sql`json` : "text", (c) => c.notNull())
          .addUniqueConstraint("events_session_event_id", ["session_id", "event_id"]);
        events = pg
          ? events
              .addColumn("transaction_id", sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_current_xact_id()`))
              .addPrimaryKeyConstraint("events_pkey", ["session_id", "seq"])
          : events.addUniqueConstraint("events_session_seq", ["session_id", "seq"]);
        await events.execute();
        if (pg) await db.schema.createIndex("events_position").on("events").column("position").execute();

        await db.schema
          .createTable("sessions")
          .addColumn("session_id", "text", (c) => c.primaryKey())
          .addColumn("version", "integer", (c) => c.notNull())
          .addColumn("view_version", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .addColumn("updated_at", timestamp, (c) => c.notNull())
          .addColumn("tenant_id", "text", (c) => c.notNull())
          .execute();

        await db.schema
          .createTable("idempotency_keys")
          .addColumn("session_id", "text", (c) => c.notNull())
          .addColumn("idempotency_key", "text", (c) => c.notNull())
          .addColumn("content_hash", "text", (c) => c.notNull())
          .addColumn("first_seq", "integer", (c) => c.notNull())
          .addColumn("last_seq", "integer", (c) => c.notNull())
          .addPrimaryKeyConstraint("idempotency_keys_pkey", ["session_id", "idempotency_key"])
          .execute();

        await db.schema
          .createTable("snapshots")
          .addColumn("session_id", "text", (c) => c.primaryKey())
          .addColumn("seq", "integer", (c) => c.notNull())
          .addColumn("format", "integer", (c) => c.notNull())
          .addColumn("state", "text", (c) => c.notNull())
          .addColumn("checksum", "text", (c) => c.notNull())
          .execute();
      },
    },
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
          .addColumn("created_at_ms", pg ? "bigint" : "integer", (c) => c.notNull())
          .addColumn("summary_ms", "integer", (c) => c.notNull())
          .addColumn("aux_tokens_in", "integer")
          .addColumn("aux_tokens_out", "integer")
          .execute();
      },
    },
    "0005_audit_read_models": auditMigration(engine),
    "0004_handoffs": { up: (db: Kysely<unknown>) => createHandoffsTable(db, engine) },
    "0006_events_global_order": {
      async up(db: Kysely<unknown>) {
        // PostgreSQL global readers page by (transaction_id, position); see global-log.ts.
        if (pg)
          await db.schema
            .createIndex("events_global_order")
            .on("events")
            .columns(["transaction_id", "position"])
            .execute();
      },
    },
    "0007_handoff_completion": { up: (db: Kysely<unknown>) => addHandoffCompletion(db, engine) },
    "0008_events_recorded_at": {
      async up(db: Kysely<unknown>) {
        // occurred_at becomes the source's time (imports keep their transcript's); recorded_at is the write's.
        await db.schema.alterTable("events").addColumn("recorded_at", timestamp).execute();
        await sql`UPDATE events SET recorded_at = occurred_at`.execute(db);
      },
    },
    "0009_sessions_listing": {
      async up(db: Kysely<unknown>) {
        // listSessionPage reads the catalogue newest first by this index (not unique: it distributes like the rest).
        await db.schema
          .createIndex("sessions_listing")
          .on("sessions")
          .columns(["created_at desc", "session_id"])
          .execute();
      },
    },
    "0010_session_erasure": {
      async up(db: Kysely<unknown>) {
        // Set once, by the erasure of the session's content (see erase-session.ts); appends need it null.
        await db.schema.alterTable("sessions").addColumn("erased_at", timestamp).execute();
      },
    },
    "0011_session_names": {
      async up(db: Kysely<unknown>) {
        // A session's name is its source's external id (see session-name.ts): written by the append that
        // creates the session, looked up by this index (not unique: two sources may share an id).
        await db.schema.alterTable("sessions").addColumn("name", "text").execute();
        await db.schema.createIndex("sessions_name").on("sessions").column("name").execute();
        await backfillSessionNames(db, engine);
      },
    },
    "0012_mirror": { up: (db: Kysely<unknown>) => createMirrorTables(db, engine) },
    "0013_audit_fork_point": auditForkPointMigration,
  };
}

/**
 * Brings the database to the latest schema; throws the migrator's error when a step fails. Stores opening
 * a fresh database at once take turns: kysely's Migrator reads what is applied and applies the rest under
 * a lock, on PostgreSQL an advisory lock, on SQLite the write lock of one `BEGIN IMMEDIATE` transaction
 * (see LockWaitingSqliteDialect); the next store then finds every step applied. A database already at the
 * latest schema is only read, so opening it never waits for another process's writes.
 */
export async function migrateToLatest(db: Kysely<StoreDatabase>, engine: Engine): Promise<void> {
  const migrations = createMigrations(engine);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  if ((await migrator.getMigrations()).every((m) => m.executedAt !== undefined)) return;
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}

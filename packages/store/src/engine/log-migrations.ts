import type { Migration } from "kysely";
import { type Kysely, sql } from "kysely";
import type { Dialect } from "./dialect.ts";
import { backfillLogKeys } from "./log-keys-backfill.ts";
import { backfillSearch } from "./search-backfill.ts";
import { backfillSessionNames } from "./session-name-queries.ts";

/**
 * The log's schema, one migration per step, built for one engine's dialect (the features' steps are
 * theirs: see store-feature.ts; every database records the steps of all of them in one sequence of names).
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
 * snapshots and precompaction_candidates, colocated); natively, `PARTITION BY HASH (session_id)` with the same keys (partitionLog, open/partition-log.ts).
 */
export function logMigrations(dialect: Dialect): Record<string, Migration> {
  const { timestamp } = dialect.types;
  return {
    "0001_event_log": {
      async up(db: Kysely<unknown>) {
        await dialect.createEventsTable(db, (events) =>
          events
            .addColumn("event_id", dialect.types.uuid, (c) => c.notNull())
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
            .addColumn("data", dialect.types.json, (c) => c.notNull())
            .addUniqueConstraint("events_session_event_id", ["session_id", "event_id"]),
        );

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
    "0006_events_global_order": {
      up: (db: Kysely<unknown>) => dialect.createGlobalOrderIndex(db),
    },
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
        await backfillSessionNames(db, dialect);
      },
    },
    "0014_log_keys": {
      async up(db: Kysely<unknown>) {
        // The ids that must stay unique over the whole log (core's log-keys.ts), so the session state need
        // not carry them: an append writes its keys beside its events; the decider is told which a command's
        // ids already are. Keyed like the rest by session_id first.
        await dialect
          .keyOnly(
            db.schema
              .createTable("log_keys")
              .addColumn("session_id", "text", (c) => c.notNull())
              .addColumn("key", "text", (c) => c.notNull())
              .addPrimaryKeyConstraint("log_keys_pkey", ["session_id", "key"]),
          )
          .execute();
        await backfillLogKeys(db);
      },
    },
    "0017_sealed_snapshots": {
      async up(db: Kysely<unknown>) {
        // An encrypted store keeps a snapshot's state sealed as bytes: its largest text, read on every
        // resume, with no base64 to decode. Ciphertext, but content all the same: no statistics (0015).
        await db.schema.alterTable("snapshots").addColumn("sealed", dialect.types.bytes).execute();
        await dialect.withoutStatistics(db, "snapshots", ["sealed"]);
      },
    },
    "0018_message_search": {
      async up(db: Kysely<unknown>) {
        // Recall: every message's terms indexed as it is appended, in the append's transaction (see
        // Dialect.createSearchIndex); the messages already stored are indexed now.
        await dialect.createSearchIndex(db, () => backfillSearch(db, dialect));
        // What a recall asks of each session it finds messages in: its compactions (a few rows among all),
        // keyed as the events' own key is since 0016.
        await db.schema
          .createIndex("events_compactions")
          .on("events")
          .columns(["session_id", "tenant_id", "seq"])
          .where(sql.ref("type"), "=", "messages.superseded")
          .execute();
      },
    },
    "0019_search_pending": {
      async up(db: Kysely<unknown>) {
        // SQLite: appends leave their terms in plain rows, folded into the FTS5 index in batches
        // (Dialect.createSearchPending); PostgreSQL has nothing to add.
        await dialect.createSearchPending(db);
      },
    },
    "0022_search_secure_delete": {
      async up(db: Kysely<unknown>) {
        // SQLite: the FTS5 index 0018 made marked an erased message's row deleted and kept its terms in its
        // pages; made again, every message of the sessions not erased indexed anew (Dialect.remakeSearchIndex).
        await dialect.remakeSearchIndex(db, () => backfillSearch(db, dialect));
      },
    },
  };
}

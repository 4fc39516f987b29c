import { type Kysely, sql } from "kysely";
import type { Dialect } from "../engine/dialect.ts";
import type { StoreFeature } from "../engine/store-feature.ts";

/** The columns naming one mirrored transcript, leading every key and index of the mirror tables. */
export const MIRROR_KEY_COLUMNS = ["project_key", "session_key", "subpath"] as const;

/**
 * Migration 0012: the mirror of external transcripts (see mirror-log.ts). Entries are JSON text kept
 * verbatim (`text`, never jsonb: that rejects `\u0000`). A uuid is stored once per key and generation
 * (a partial unique index: entries without one repeat freely). `mirror_sessions` lists the sessions each
 * key and generation was folded into, so an erasure finds them all.
 */
async function createMirrorTables(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ms = dialect.types.epochMs;
  await db.schema
    .createTable("mirror_keys")
    .addColumn("project_key", "text", (c) => c.notNull())
    .addColumn("session_key", "text", (c) => c.notNull())
    .addColumn("subpath", "text", (c) => c.notNull())
    .addColumn("generation", "integer", (c) => c.notNull())
    .addColumn("next_seq", "integer", (c) => c.notNull())
    .addColumn("folded_seq", "integer", (c) => c.notNull())
    .addColumn("mtime_ms", ms, (c) => c.notNull())
    .addColumn("summary", "text")
    .addColumn("last_batch", "text")
    .addPrimaryKeyConstraint("mirror_keys_pkey", [...MIRROR_KEY_COLUMNS])
    .execute();
  await db.schema
    .createTable("mirror_entries")
    .addColumn("project_key", "text", (c) => c.notNull())
    .addColumn("session_key", "text", (c) => c.notNull())
    .addColumn("subpath", "text", (c) => c.notNull())
    .addColumn("generation", "integer", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("uuid", "text")
    .addColumn("entry", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("mirror_entries_pkey", [...MIRROR_KEY_COLUMNS, "generation", "seq"])
    .execute();
  await db.schema
    .createIndex("mirror_entries_uuid")
    .on("mirror_entries")
    .columns([...MIRROR_KEY_COLUMNS, "generation", "uuid"])
    .unique()
    .where(sql.ref("uuid"), "is not", null)
    .execute();
  await db.schema
    .createTable("mirror_sessions")
    .addColumn("project_key", "text", (c) => c.notNull())
    .addColumn("session_key", "text", (c) => c.notNull())
    .addColumn("subpath", "text", (c) => c.notNull())
    .addColumn("generation", "integer", (c) => c.notNull())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("mirror_sessions_pkey", [...MIRROR_KEY_COLUMNS, "generation", "session_id"])
    .execute();
}

/**
 * The mirror's tables (migration 0012); its erasure is the fold's (mirror-erase.ts), not the log's: it
 * deletes a key's entries and clears its summary and last batch's hash (the mirror's content).
 */
export const mirrorFeature: StoreFeature = {
  name: "mirror",
  migrations: (dialect) => ({ "0012_mirror": { up: (db: Kysely<unknown>) => createMirrorTables(db, dialect) } }),
  contentColumns: { mirror_entries: ["entry"], mirror_keys: ["summary", "last_batch"] },
};

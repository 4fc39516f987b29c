/**
 * The testing entry to a store's kysely handle, which the public store does not expose: tests and
 * benches that read or write tables directly (dumps, migration checks, fault injection) get it here.
 */
import type { AuditTables } from "../../packages/store/src/audit/audit-tables.ts";
import { storeAccess } from "../../packages/store/src/engine/store-access.ts";
import type { HandoffTables } from "../../packages/store/src/handoff/handoff-table.ts";
import type { MirrorTables } from "../../packages/store/src/mirror/mirror-tables.ts";
import { type OpenedEventStore, SqlEventStore } from "../../packages/store/src/open/opened-event-store.ts";

/** The SQL store behind what openEventStore returned: its guarded and locked writes, which fault tests hook or drive. */
export function sqlStoreOf(store: OpenedEventStore): SqlEventStore {
  if (!(store instanceof SqlEventStore)) throw new Error("not a store openEventStore opened");
  return store;
}

/** The kysely handle of a store openEventStore opened, typed with the log's and the features' tables. */
export function databaseOf(store: object) {
  return storeAccess(store).db.withTables<AuditTables & HandoffTables & MirrorTables>();
}

/**
 * Undoes migrations 0020 and 0021 on a store's database (the summarizer's prompt-cache columns of the
 * audit's compactions and of the pre-compaction candidates), for tests that take a database back before them.
 */
export async function undoCacheTokenColumns(store: OpenedEventStore): Promise<void> {
  const db = storeAccess(store).db;
  for (const table of ["audit_compactions", "precompaction_candidates"]) {
    for (const column of ["aux_tokens_cache_read", "aux_tokens_cache_write"]) {
      await db.schema.alterTable(table).dropColumn(column).execute();
    }
  }
}

/**
 * Undoes migrations 0018 and 0019 on a store's database (its search index, and SQLite's pending terms),
 * for tests that take a database back before them.
 */
export async function undoSearchIndex(store: OpenedEventStore): Promise<void> {
  const db = databaseOf(store);
  await db.schema.dropIndex("events_compactions").execute();
  if (store.engine === "postgres") {
    await db.schema.dropIndex("events_search").execute();
    await db.schema.alterTable("events").dropColumn("search").execute();
  } else {
    await db.schema.dropTable("message_search").execute();
    await db.schema.dropTable("message_search_pending").execute(); // 0019
  }
}

/**
 * The migration steps a database records, by name and in order. kysely refuses to open a database that
 * recorded a step the code no longer has, or whose next step sorts before one it applied: renaming,
 * renumbering or reordering a step would lock every existing user out of their data. A new step goes at
 * the end with the next number (0003 was never used and stays free).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../../packages/store/src/engine/postgres/postgres-dialect.ts";
import { sqliteDialect } from "../../packages/store/src/engine/sqlite/sqlite-dialect.ts";
import { mergeMigrations } from "../../packages/store/src/engine/store-feature.ts";
import { storeMigrations } from "../../packages/store/src/open/store-features.ts";
import { type StoreBackend, storeBackends } from "../support/store-backends.ts";
import { databaseOf } from "../support/store-database.ts";

const APPLIED = [
  "0001_event_log",
  "0002_precompaction_candidates",
  "0004_handoffs",
  "0005_audit_read_models",
  "0006_events_global_order",
  "0007_handoff_completion",
  "0008_events_recorded_at",
  "0009_sessions_listing",
  "0010_session_erasure",
  "0011_session_names",
  "0012_mirror",
  "0013_audit_fork_point",
  "0014_log_keys",
  "0015_content_statistics",
  "0016_tenants",
  "0017_sealed_snapshots",
  "0018_message_search",
  "0019_search_pending",
  "0020_audit_cache_tokens",
  "0021_candidate_cache_tokens",
  "0022_search_secure_delete",
];

/** The part of kysely's builders this reads with, over any table (kysely is a store dependency only). */
interface MigrationTable {
  selectFrom(table: "kysely_migration"): {
    select(column: "name"): { orderBy(column: "name"): { execute(): Promise<{ name: string }[]> } };
  };
}

describe("migration steps registered", () => {
  it("the log's and every feature's steps merge into these names, in this order (kysely runs them sorted)", () => {
    for (const dialect of [postgresDialect, sqliteDialect]) {
      expect(Object.keys(storeMigrations(dialect)).sort()).toEqual(APPLIED);
    }
  });

  it("a step two of them define is refused", () => {
    const step = { up: async () => {} };
    expect(() => mergeMigrations([{ "0014_x": step }, { "0014_x": step }])).toThrow(/0014_x is defined twice/);
  });
});

for (const { name, make, skip } of storeBackends()) {
  describe.skipIf(skip !== undefined)(`migration steps (${name})`, () => {
    let backend: StoreBackend;
    beforeAll(async () => {
      backend = await make();
    });
    afterAll(() => backend.dispose());

    it("a new database records every step, by these names, in this order", async () => {
      const store = await backend.open();
      const rows = await (databaseOf(store) as unknown as MigrationTable)
        .selectFrom("kysely_migration")
        .select("name")
        .orderBy("name")
        .execute();
      expect(rows.map((r) => r.name)).toEqual(APPLIED);
    });
  });
}

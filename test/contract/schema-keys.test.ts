/**
 * The keys of every table the store creates, read from the database's catalog on each engine: every
 * primary and unique key holds the tenant (two tenants may use one id), and leads with `session_id` so
 * the tables can be distributed by it (Citus's rule: a distributed table's unique keys hold its
 * distribution column). The few tables that are not one session's rows say why, below.
 */
import { openEventStore, PARTITIONED_TABLES } from "@palimpsest/store";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TENANT_TABLES } from "../../packages/store/src/engine/tenant-scope.ts";
import type { ScratchDatabase } from "../support/scratch-postgres.ts";
import { type TestEngine, testEngines } from "../support/test-engines.ts";

/** Tables whose keys do not lead with `session_id`, and why they need not. */
const NOT_BY_SESSION: Record<string, string> = {
  audit_checkpoints: "one row per projector and tenant: a reference table",
  handoffs: "the queue is claimed across sessions: a reference table, or kept on the coordinator",
  mirror_keys: "keyed by the SDK's transcript key, which several sessions fold from: distributed by it",
  mirror_entries: "a transcript key's lines: distributed by the key, with mirror_keys",
  mirror_sessions: "a transcript key's sessions: distributed by the key, with mirror_keys",
};

/** One unique key: its table, its name and its columns in order. */
interface UniqueKey {
  table: string;
  name: string;
  columns: string[];
}

/** Every primary and unique key of the store's tables (SQLite's rowid keys are no index and not listed). */
async function uniqueKeys(engine: TestEngine, url: string): Promise<UniqueKey[]> {
  if (engine.name === "postgres") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<UniqueKey>(
        `SELECT c.relname AS table, i.relname AS name,
          array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns
        FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indisunique AND c.relname = ANY($1)`,
        [[...TENANT_TABLES]],
      );
      return rows;
    } finally {
      await client.end();
    }
  }
  const database = new Database(url, { readonly: true });
  try {
    const keys: UniqueKey[] = [];
    for (const table of TENANT_TABLES) {
      const indexes = database.prepare('SELECT name, "unique" FROM pragma_index_list(?)').all(table) as {
        name: string;
        unique: number;
      }[];
      for (const index of indexes.filter((i) => i.unique === 1)) {
        const columns = database
          .prepare("SELECT name FROM pragma_index_info(?) ORDER BY seqno")
          .pluck()
          .all(index.name);
        keys.push({ table, name: index.name, columns: columns as string[] });
      }
    }
    return keys;
  } finally {
    database.close();
  }
}

for (const engine of testEngines()) {
  describe.skipIf(engine.skip !== undefined)(`the store's keys (${engine.name})`, () => {
    let database: ScratchDatabase;
    let keys: UniqueKey[];
    beforeAll(async () => {
      database = await engine.create("keys");
      await (await openEventStore(database.url)).close();
      keys = await uniqueKeys(engine, database.url);
    });
    afterAll(() => database?.drop());

    it("every table has a unique key, and every unique key holds the tenant", () => {
      const keyed = new Set(keys.map((k) => k.table));
      // SQLite's events are keyed by their rowid (position), which no index lists; their (session, seq) key is.
      expect([...TENANT_TABLES].filter((t) => !keyed.has(t))).toEqual([]);
      for (const key of keys) expect(key.columns, `${key.table}.${key.name}`).toContain("tenant_id");
    });

    it("every unique key leads with session_id, but those of the tables that say why not", () => {
      const leading = keys.filter((k) => !(k.table in NOT_BY_SESSION)).map((k) => [k.name, k.columns[0]]);
      expect(leading.filter(([, first]) => first !== "session_id")).toEqual([]);
      expect(leading.length).toBeGreaterThanOrEqual(10);
      // The exceptions are still tables of this store (a renamed table must not hide behind a stale entry).
      for (const table of Object.keys(NOT_BY_SESSION)) expect(TENANT_TABLES).toContain(table);
    });

    it("partitionLog divides exactly the tables keyed by session", () => {
      const bySession = TENANT_TABLES.filter((t) => !(t in NOT_BY_SESSION));
      expect([...PARTITIONED_TABLES].sort()).toEqual([...bySession].sort());
    });
  });
}

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { createScratchDatabase } from "./scratch-postgres.ts";

/** A store as openEventStore returns it: EventStore, SnapshotStore, subscribe and engine. */
export type TestStore = Awaited<ReturnType<typeof openEventStore>>;

/** An append held open in its own transaction, so tests can order commits by hand. */
export interface HeldAppend {
  commit(): Promise<void>;
}

/** One database the contract suite runs against, isolated from every other test run. */
export interface StoreBackend {
  readonly name: string;
  /** Opens another store (its own connections) on this backend's database; closed by dispose. */
  open(): Promise<TestStore>;
  /** PostgreSQL only: the database's URL, for a test's own connections. */
  readonly url?: string;
  /** PostgreSQL only: starts a session's first append in a raw transaction and leaves it uncommitted. */
  holdOpenAppend?: (sessionId: string) => Promise<HeldAppend>;
  /** Closes every store it opened and deletes the database. */
  dispose(): Promise<void>;
}

function tracking(open: () => Promise<TestStore>) {
  const stores: TestStore[] = [];
  return {
    open: async () => {
      const store = await open();
      stores.push(store);
      return store;
    },
    closeAll: () => Promise.all(stores.map((s) => s.close())),
  };
}

/** A SQLite backend on a real file in a fresh temporary folder. */
export async function sqliteBackend(): Promise<StoreBackend> {
  const dir = await mkdtemp(join(tmpdir(), "palimpsest-contract-"));
  const stores = tracking(() => openEventStore(join(dir, "nested", "store.db")));
  return {
    name: "sqlite",
    open: stores.open,
    async dispose() {
      await stores.closeAll();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PostgreSQL backend on a database of its own, created on the server of `baseUrl` (normally
 * TEST_DATABASE_URL or a testcontainers server) and dropped by dispose, so test files and runs can go in parallel.
 */
export async function postgresBackend(baseUrl: string): Promise<StoreBackend> {
  const database = await createScratchDatabase(baseUrl, "test");
  const url = new URL(database.url);
  const stores = tracking(() => openEventStore(url.href));
  const clients: pg.Client[] = [];
  return {
    name: "postgres",
    url: url.href,
    open: stores.open,
    async holdOpenAppend(sessionId) {
      const client = new pg.Client({ connectionString: url.href });
      clients.push(client);
      await client.connect();
      await client.query("BEGIN");
      await client.query(
        `INSERT INTO sessions (session_id, version, view_version, created_at, updated_at, tenant_id)
         VALUES ($1, 1, 0, now(), now(), 'default')`,
        [sessionId],
      );
      await client.query(
        `INSERT INTO events (event_id, session_id, seq, type, schema_version, occurred_at, content_hash, tenant_id, data)
         VALUES (gen_random_uuid(), $1, 1, 'session.started', 1, now(), 'held', 'default', $2)`,
        [sessionId, JSON.stringify({ encoding: "o200k_base" })],
      );
      return { commit: async () => void (await client.query("COMMIT")) };
    },
    async dispose() {
      await Promise.all(clients.map((c) => c.end()));
      await stores.closeAll();
      await database.drop();
    },
  };
}

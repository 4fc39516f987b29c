import { join } from "node:path";
import { openEventStore, partitionLog } from "@palimpsest/store";
import type { ContractBackend, HeldAppend } from "@palimpsest/store/contract";
import { createMemoryStore, type MemoryStore } from "@palimpsest/store/testing";
import pg from "pg";
import { createScratchDatabase } from "./scratch-postgres.ts";
import { type TestEngine, testEngine, testEngines } from "./test-engines.ts";
import { testKeyring } from "./test-keyring.ts";

/** A store as openEventStore returns it: EventStore, SnapshotStore, subscribe and engine. */
export type TestStore = Awaited<ReturnType<typeof openEventStore>>;

/** One database the contract suite runs against, isolated from every other test run (see ContractBackend). */
export interface StoreBackend extends ContractBackend<TestStore> {
  readonly name: string;
  /** PostgreSQL only: the database's URL, for a test's own connections. */
  readonly url?: string;
  /** PostgreSQL only: starts a session's first append in a raw transaction and leaves it uncommitted. */
  holdOpenAppend?: (sessionId: string) => Promise<HeldAppend>;
}

function tracking(open: (options: { tenant?: string }) => Promise<TestStore>) {
  const stores: TestStore[] = [];
  return {
    open: async (options: { tenant?: string } = {}) => {
      const store = await open(options);
      stores.push(store);
      return store;
    },
    closeAll: () => Promise.all(stores.map((s) => s.close())),
  };
}

/**
 * A backend on a database of its own created by `engine` (`file`: SQLite's path in its folder); with
 * `encrypted`, every store it opens encrypts content with one local keyring of its own; with `partitions`
 * (PostgreSQL), the log is divided into that many partitions (partitionLog) before any store opens.
 */
async function backendOn(
  engine: TestEngine,
  file?: string,
  encrypted = false,
  partitions?: number,
): Promise<StoreBackend> {
  const database = await engine.create("test", file);
  if (partitions !== undefined) await partitionLog(database.url, { partitions });
  const keys = encrypted ? await testKeyring() : undefined;
  const stores = tracking((options) =>
    openEventStore(database.url, keys === undefined ? options : { ...options, keyring: keys.keyring }),
  );
  const clients: pg.Client[] = [];
  return {
    name: engine.name,
    ...(engine.name === "postgres" ? { url: database.url } : {}),
    open: stores.open,
    ...(engine.name === "postgres"
      ? { holdOpenAppend: (id: string) => holdOpenAppend(database.url, id, clients) }
      : {}),
    async dispose() {
      await Promise.all(clients.map((c) => c.end()));
      await stores.closeAll();
      await database.drop();
      await keys?.dispose();
    },
  };
}

/** Where a SQLite backend's file is, in its temporary folder: in a folder the store creates. */
const SQLITE_FILE = join("nested", "store.db");

/** A SQLite backend on a real file in a fresh temporary folder. */
export function sqliteBackend(): Promise<StoreBackend> {
  return backendOn(testEngine("sqlite"), SQLITE_FILE);
}

/**
 * A PostgreSQL backend on a database of its own, created on the server of `baseUrl` (normally
 * TEST_DATABASE_URL or a testcontainers server) and dropped by dispose, so test files and runs can go in parallel.
 */
export function postgresBackend(baseUrl: string): Promise<StoreBackend> {
  return backendOn({ name: "postgres", create: (label) => createScratchDatabase(baseUrl, label) });
}

/**
 * A store backend per test engine (see test-engines.ts): `make` creates it, `skip` says why it cannot;
 * with `encrypted`, its stores encrypt content (a local keyring per backend).
 */
export function storeBackends(encrypted = false): { name: string; skip?: string; make: () => Promise<StoreBackend> }[] {
  return testEngines().map((engine) => ({
    name: encrypted ? `${engine.name}, encrypted` : engine.name,
    ...(engine.skip === undefined ? {} : { skip: engine.skip }),
    make: () => backendOn(engine, SQLITE_FILE, encrypted),
  }));
}

/** The PostgreSQL backend with its log partitioned by session (partitionLog, 4 partitions), if PostgreSQL runs. */
export function partitionedBackends(): { name: string; skip?: string; make: () => Promise<StoreBackend> }[] {
  return testEngines()
    .filter((engine) => engine.name === "postgres")
    .map((engine) => ({
      name: `${engine.name}, partitioned`,
      ...(engine.skip === undefined ? {} : { skip: engine.skip }),
      make: () => backendOn(engine, undefined, false, 4),
    }));
}

/** A backend on a memory store of its own: `open` connects another store to its data. */
export function memoryBackend(): ContractBackend<MemoryStore> {
  const root = createMemoryStore();
  const stores: MemoryStore[] = [root];
  return {
    open: async (options = {}) => {
      const store = root.connect(options);
      stores.push(store);
      return store;
    },
    dispose: async () => void (await Promise.all(stores.map((s) => s.close()))),
  };
}

/** PostgreSQL: starts a session's first append in a raw transaction on its own client and leaves it uncommitted. */
async function holdOpenAppend(url: string, sessionId: string, clients: pg.Client[]): Promise<HeldAppend> {
  const client = new pg.Client({ connectionString: url });
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
}

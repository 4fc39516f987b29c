import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEventStore } from "@palimpsest/store";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import type { TestStore } from "../support/store-backends.ts";

/** A database the live-view tests reach by URL, so child processes can open it too. */
export interface WatchBackend {
  readonly name: string;
  /** Why the backend is skipped, when it is. */
  readonly skip?: string;
  /** Creates the database (beforeAll); returns its URL. */
  setup(): Promise<string>;
  /** Opens another store on it (own connections: another "process"); closed by dispose. */
  open(): Promise<TestStore>;
  /** Closes every store opened and deletes the database (afterAll). */
  dispose(): Promise<void>;
}

/** How often the SQLite stores of these tests poll for other processes' commits (ms). */
export const TEST_SQLITE_POLL_MS = 20;

function backend(name: string, create: () => Promise<{ url: string; drop(): Promise<void> }>): WatchBackend {
  const stores: TestStore[] = [];
  let database: { url: string; drop(): Promise<void> } | undefined;
  return {
    name,
    async setup() {
      database = await create();
      return database.url;
    },
    async open() {
      if (database === undefined) throw new Error(`${name} backend used before setup()`);
      const store = await openEventStore(database.url, { sqlitePollMs: TEST_SQLITE_POLL_MS });
      stores.push(store);
      return store;
    },
    async dispose() {
      await Promise.all(stores.map((s) => s.close()));
      await database?.drop();
    },
  };
}

/** A SQLite file in a fresh temporary folder, and PostgreSQL (a scratch database) when a server is found. */
export function watchBackends(): WatchBackend[] {
  const server = postgresServer();
  const sqlite = backend("sqlite", async () => {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-watch-"));
    return { url: join(dir, "store.db"), drop: () => rm(dir, { recursive: true, force: true }) };
  });
  if ("skip" in server)
    return [sqlite, { ...backend("postgres", () => Promise.reject(new Error(server.skip))), skip: server.skip }];
  return [sqlite, backend("postgres", () => createScratchDatabase(server.url, "watch"))];
}

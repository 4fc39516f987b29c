import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type OpenSessionStoreOptions,
  openSessionStore,
  type PalimpsestSessionStore,
} from "@palimpsest/claude-agent-sdk";
import { type OpenedEventStore, openEventStore, type SessionCursor } from "@palimpsest/store";
import { afterEach } from "vitest";
import { type DatabaseDump, dumpDatabase } from "../support/database-scan.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import { testKeyring } from "../support/test-keyring.ts";

/** One test's own database: its URL, and stores opened on it (each a "process"), closed by dispose. */
export interface IsolatedDatabase {
  readonly url: string;
  /** Opens another PalimpsestSessionStore on this database (its own connections). */
  open(options?: Omit<OpenSessionStoreOptions, "url">): Promise<PalimpsestSessionStore>;
  /** Every row of every table (test/support/database-scan.ts), read on a connection of its own. */
  dump(): Promise<DatabaseDump>;
  /**
   * Every event of every session as JSON text, opened with the database's keyring when it has one, read
   * through a plain event store (which folds nothing, unlike opening a SessionStore).
   */
  eventTexts(): Promise<string[]>;
  /** Whether stores opened on it encrypt content (so no table holds a text in the clear). */
  readonly encrypted: boolean;
}

/** An engine the SessionStore contract runs on; each test gets a database of its own. */
export interface SessionStoreBackend {
  readonly name: "sqlite" | "postgres";
  /** Why the engine is skipped (no PostgreSQL server), when it is. */
  readonly skip?: string;
  /** Creates an empty database and says how to drop it. */
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

/** SQLite: a real file in a fresh temporary folder. */
export const sqliteSessionStores: SessionStoreBackend = {
  name: "sqlite",
  async create() {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-sdk-store-"));
    return { url: join(dir, "nested", "store.db"), drop: () => rm(dir, { recursive: true, force: true }) };
  },
};

/** PostgreSQL: a scratch database per test on TEST_DATABASE_URL's server; skipped (loudly) without one. */
export function postgresSessionStores(): SessionStoreBackend {
  const server = postgresServer();
  if ("skip" in server) {
    return { name: "postgres", skip: server.skip, create: () => Promise.reject(new Error(server.skip)) };
  }
  return { name: "postgres", create: () => createScratchDatabase(server.url, "sdkstore") };
}

/**
 * Registers an afterEach that closes every store a test opened and drops its database; returns `fresh`,
 * which creates the calling test's own database. With `encrypted`, every store opened on it encrypts
 * content with one local keyring of the database's own (unless the test passes another).
 */
export function isolatedDatabases(backend: SessionStoreBackend, encrypted = false): () => Promise<IsolatedDatabase> {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    const pending = cleanups.reverse();
    cleanups = [];
    const failures: unknown[] = [];
    for (const cleanup of pending) await cleanup().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  });
  return async () => {
    const database = await backend.create();
    cleanups.push(database.drop);
    const keys = encrypted ? await testKeyring() : undefined;
    if (keys !== undefined) cleanups.push(keys.dispose);
    let scanner: OpenedEventStore | undefined;
    return {
      url: database.url,
      async open(options = {}) {
        const keyring = keys === undefined ? {} : { keyring: keys.keyring };
        const store = await openSessionStore({ ...keyring, ...options, url: database.url });
        cleanups.push(() => store.close());
        return store;
      },
      encrypted,
      async eventTexts() {
        const store = await openEventStore(database.url, keys === undefined ? {} : { keyring: keys.keyring });
        try {
          const texts: string[] = [];
          for (let after: SessionCursor | undefined; ; ) {
            const page = await store.listSessionPage(after === undefined ? {} : { after });
            for (const { sessionId } of page.sessions)
              texts.push(...(await store.readStream(sessionId)).map((event) => JSON.stringify(event)));
            if (page.next === null) return texts;
            after = page.next;
          }
        } finally {
          await store.close();
        }
      },
      async dump() {
        if (scanner === undefined) {
          const opened = await openEventStore(database.url);
          cleanups.push(() => opened.close());
          scanner = opened;
        }
        return dumpDatabase(scanner);
      },
    };
  };
}

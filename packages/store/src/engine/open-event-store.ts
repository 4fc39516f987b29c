import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { checkSqliteFile, namingTheFile, parseDatabaseUrl } from "./database-url.ts";
import type { EngineAdapter } from "./engine-adapter.ts";
import { KyselyEventStore } from "./kysely-event-store.ts";
import { migrateToLatest } from "./migrations.ts";
import { DEFAULT_SQLITE_BUSY_TIMEOUT_MS, retryWhileBusy } from "./sqlite-busy.ts";
import { DEFAULT_SQLITE_POLL_MS } from "./sqlite-changes.ts";
import { guardStorage } from "./storage-guard.ts";

/** Where `palimpsest` keeps its log when no database URL is given. */
export const DEFAULT_DATABASE_PATH = "./.palimpsest/palimpsest.db";

/** How a store is opened, beyond its URL. */
export interface OpenEventStoreOptions {
  /**
   * SQLite only: how often (ms) a store with change listeners checks the file for commits made by other
   * connections or processes; default DEFAULT_SQLITE_POLL_MS. The latency of a cross-process wake-up.
   */
  sqlitePollMs?: number;
  /**
   * SQLite only: how long (ms) an append, write, read or migration waits for a lock another process holds
   * (default DEFAULT_SQLITE_BUSY_TIMEOUT_MS) before failing with a retryable StorageError. The wait runs on
   * timers: the event loop keeps turning.
   */
  sqliteBusyTimeoutMs?: number;
  /**
   * SQLite only: create the file (and its folder) when it does not exist; default true. Read-only
   * callers pass false, so a mistyped path is NotFoundError rather than a new empty database.
   */
  create?: boolean;
}

/**
 * Opens (and migrates) the store at `url` (see parseDatabaseUrl: PostgreSQL, in-memory SQLite, or a
 * SQLite file path or `file:` URL; an unknown scheme is a ValidationError); default DEFAULT_DATABASE_PATH.
 * A damaged SQLite file is a StorageError naming it.
 */
export async function openEventStore(
  url: string = DEFAULT_DATABASE_PATH,
  options: OpenEventStoreOptions = {},
): Promise<KyselyEventStore> {
  const adapter = await guardStorage("open", () => openAdapter(url, options)).catch((error: unknown) => {
    throw namingTheFile(error, url);
  });
  try {
    await guardStorage("migrate", () => migrateToLatest(adapter.db, adapter.engine));
  } catch (error) {
    await adapter.db.destroy().catch(() => {}); // the migration's error is the one to report
    throw namingTheFile(error, url);
  }
  return new KyselyEventStore(adapter);
}

/** Loads only the driver the URL needs (a SQLite user never loads pg, and the reverse). */
async function openAdapter(url: string, options: OpenEventStoreOptions): Promise<EngineAdapter> {
  const location = parseDatabaseUrl(url);
  if (location.engine === "postgres") {
    const { createPostgresPool, postgresAdapter } = await import("./postgres-adapter.ts");
    return postgresAdapter(createPostgresPool(url));
  }
  const path = location.memory ? ":memory:" : location.path;
  if (!location.memory) checkSqliteFile(path, options.create !== false);
  const [driver, { sqliteAdapter }] = await Promise.all([import("better-sqlite3"), import("./sqlite-adapter.ts")]);
  const busyTimeoutMs = options.sqliteBusyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
  const database = await openSqlite(driver.default, path, busyTimeoutMs);
  return sqliteAdapter(database, { pollMs: options.sqlitePollMs ?? DEFAULT_SQLITE_POLL_MS, busyTimeoutMs });
}

/**
 * Opens a SQLite database durably: WAL journal, fsync on every commit. SQLite's own busy wait is off
 * (busy_timeout 0, it would sleep inside the call): the store waits for locks on timers (retryWhileBusy).
 */
async function openSqlite(
  Database: typeof BetterSqlite3,
  url: string,
  busyTimeoutMs: number,
): Promise<BetterSqlite3.Database> {
  const inMemory = url === ":memory:" || url === "memory:";
  if (!inMemory) mkdirSync(dirname(resolve(url)), { recursive: true });
  const database = new Database(inMemory ? ":memory:" : url);
  try {
    database.pragma("busy_timeout = 0");
    // Switching a fresh file to WAL takes its lock: processes opening it at once wait for each other.
    await retryWhileBusy(database, busyTimeoutMs, "open", () => database.pragma("journal_mode = WAL"));
    database.pragma("synchronous = FULL");
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { EngineAdapter } from "./engine-adapter.ts";
import { KyselyEventStore } from "./kysely-event-store.ts";
import { migrateToLatest } from "./migrations.ts";
import { guardStorage } from "./storage-guard.ts";

/** Where `palimpsest` keeps its log when no database URL is given. */
export const DEFAULT_DATABASE_PATH = "./.palimpsest/palimpsest.db";

/** How long a SQLite writer waits for another process's write lock before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (and migrates) the store at `url`: `postgres://` or `postgresql://` for PostgreSQL, `:memory:`
 * or `memory:` for an in-memory SQLite, anything else a SQLite file path; default DEFAULT_DATABASE_PATH.
 */
export async function openEventStore(url: string = DEFAULT_DATABASE_PATH): Promise<KyselyEventStore> {
  const adapter = await guardStorage("open", () => openAdapter(url));
  try {
    await guardStorage("migrate", () => migrateToLatest(adapter.db, adapter.engine));
  } catch (error) {
    await adapter.db.destroy().catch(() => {}); // the migration's error is the one to report
    throw error;
  }
  return new KyselyEventStore(adapter);
}

function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

/** Loads only the driver the URL needs (a SQLite user never loads pg, and the reverse). */
async function openAdapter(url: string): Promise<EngineAdapter> {
  if (isPostgresUrl(url)) {
    const { createPostgresPool, postgresAdapter } = await import("./postgres-adapter.ts");
    return postgresAdapter(createPostgresPool(url));
  }
  const [driver, { sqliteAdapter }] = await Promise.all([import("better-sqlite3"), import("./sqlite-adapter.ts")]);
  return sqliteAdapter(openSqlite(driver.default, url));
}

/** Opens a SQLite database durably: WAL journal, fsync on every commit, a wait for busy writers. */
function openSqlite(Database: typeof BetterSqlite3, url: string): BetterSqlite3.Database {
  const inMemory = url === ":memory:" || url === "memory:";
  if (!inMemory) mkdirSync(dirname(resolve(url)), { recursive: true });
  const database = new Database(inMemory ? ":memory:" : url);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = FULL");
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  return database;
}

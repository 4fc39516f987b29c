/**
 * The SQLite engine's defaults, apart from its modules that use better-sqlite3's types: the store's public
 * declarations re-export them and must not need the driver (an optional peer dependency).
 */

/** How long, by default, a SQLite operation waits for another process's lock before failing (ms). */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5_000;

/** How often, by default, a SQLite store with listeners checks for commits made by other connections (ms). */
export const DEFAULT_SQLITE_POLL_MS = 100;

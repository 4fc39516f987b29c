import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadOptionalPeer, NotFoundError, StorageError, ValidationError } from "@palimpsest/core";
import type BetterSqlite3 from "better-sqlite3";
import type { EngineOpener } from "../engine-opener.ts";
import { retryWhileBusy } from "./sqlite-busy.ts";
import { DEFAULT_SQLITE_BUSY_TIMEOUT_MS, DEFAULT_SQLITE_POLL_MS } from "./sqlite-defaults.ts";

/** Where a SQLite URL points: an in-memory database or a file. */
type SqliteLocation = { memory: true } | { memory: false; path: string };

/** A URL scheme of two letters or more (`C:\…` stays a path). */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;

/**
 * SQLite's URLs: `:memory:` or `memory:`; `file:` followed by a path (`file:./x.db`) or a file URL
 * (`file:///abs/x.db`); or a plain file path (no scheme). The adapter and better-sqlite3, an optional peer
 * dependency, load on open (without it: a ValidationError saying `npm install better-sqlite3`).
 */
export const sqliteOpener: EngineOpener = {
  engine: "sqlite",
  forms: ["file:<path>", "a SQLite file path", ":memory:"],
  matches: (url) =>
    url === ":memory:" || url === "memory:" || url.startsWith("file:") || (url.length > 0 && !SCHEME.test(url)),
  async open(url, options, tenant) {
    const location = sqliteLocation(url);
    const path = location.memory ? ":memory:" : location.path;
    if (!location.memory) checkSqliteFile(path, options.create !== false);
    const driver = await loadOptionalPeer(
      `the SQLite database ${path}`,
      "better-sqlite3",
      () => import("better-sqlite3"),
    );
    const { sqliteAdapter } = await import("./sqlite-adapter.ts");
    const busyTimeoutMs = options.sqliteBusyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
    const database = await openSqlite(driver.default, path, busyTimeoutMs);
    const pollMs = options.sqlitePollMs ?? DEFAULT_SQLITE_POLL_MS;
    return sqliteAdapter(database, { pollMs, busyTimeoutMs, tenant });
  },
  explain: namingTheFile,
};

/** Reads a SQLite URL (one `matches` took); ValidationError for a `file:` URL with a query or no path. */
function sqliteLocation(url: string): SqliteLocation {
  if (url === ":memory:" || url === "memory:") return { memory: true };
  if (url.startsWith("file:")) {
    const rest = url.slice("file:".length);
    if (rest.includes("?") || rest.includes("#") || rest.length === 0) {
      throw new ValidationError(`database URL ${url}: a file: URL takes a path and no query`, [`url: ${url}`], {
        path: "url",
      });
    }
    return { memory: false, path: rest.startsWith("//") ? fileURLToPath(url) : rest };
  }
  return { memory: false, path: url };
}

/** The first bytes of every SQLite database file. */
const SQLITE_MAGIC = "SQLite format 3\0";

/**
 * Checks a SQLite file before opening it: NotFoundError when it is absent and may not be created;
 * StorageError naming the file when it is not a SQLite database, or is shorter than its header says
 * (truncated, and no write-ahead log to finish it). A missing or empty file passes when `create`.
 */
function checkSqliteFile(path: string, create: boolean): void {
  if (!existsSync(path)) {
    if (create) return;
    throw new NotFoundError("file", path);
  }
  const size = statSync(path).size;
  if (size === 0) return; // a file SQLite has not written yet
  const header = Buffer.alloc(100);
  const fd = openSync(path, "r");
  let read: number;
  try {
    read = readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (read < 100 || header.toString("latin1", 0, 16) !== SQLITE_MAGIC) {
    throw new StorageError("open", `${path} is not a SQLite database (damaged, or another kind of file)`);
  }
  const pageSize = header.readUInt16BE(16) === 1 ? 65_536 : header.readUInt16BE(16);
  const pages = header.readUInt32BE(28);
  const headerCountValid = header.readUInt32BE(24) === header.readUInt32BE(92);
  const wal = `${path}-wal`;
  const walPending = existsSync(wal) && statSync(wal).size > 0;
  if (headerCountValid && !walPending && pages * pageSize > size) {
    throw new StorageError(
      "open",
      `${path} is damaged: its header counts ${pages * pageSize} bytes of pages, the file has ${size} (truncated?)`,
    );
  }
}

/** A StorageError from opening the SQLite file at `url`, reworded to name the file (others unchanged). */
function namingTheFile(error: unknown, url: string): unknown {
  if (!(error instanceof StorageError)) return error;
  let location: SqliteLocation;
  try {
    location = sqliteLocation(url);
  } catch {
    return error;
  }
  if (location.memory || error.message.includes(location.path)) return error;
  const { operation, retryable } = error.details;
  const reason = error.message.slice(operation.length + 2);
  return new StorageError(operation, `${location.path}: ${reason}`, { cause: error.cause ?? error, retryable });
}

/**
 * The first commit into an empty write-ahead log (the last connection to close deletes it) also writes and
 * syncs the log's header: two fsyncs where later commits make one. A write that changes nothing (the
 * database's user_version set to itself) pays that at open, not in the first append. Only a saving: a
 * write lock held elsewhere or a file it cannot write skips it.
 */
function writeLogHeader(database: BetterSqlite3.Database): void {
  try {
    const version = Number(database.pragma("user_version", { simple: true }));
    database.pragma(`user_version = ${Number.isSafeInteger(version) ? version : 0}`);
  } catch {
    // Busy or read-only: the first append pays it, as before.
  }
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
    if (!inMemory) writeLogHeader(database);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

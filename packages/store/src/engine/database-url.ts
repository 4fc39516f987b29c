import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { NotFoundError, StorageError, ValidationError } from "@palimpsest/core";

/** Where a database URL points: a PostgreSQL server, an in-memory SQLite, or a SQLite file. */
export type DatabaseLocation =
  | { engine: "postgres"; url: string }
  | { engine: "sqlite"; memory: true }
  | { engine: "sqlite"; memory: false; path: string };

/**
 * Reads a database URL: `postgres://` or `postgresql://`; `:memory:` or `memory:`; `file:` followed by
 * a path (`file:./x.db`) or a file URL (`file:///abs/x.db`); or a plain file path. Any other scheme
 * (`mysql://…`, `sqlite:…`) is a ValidationError, never a file name: a path holding a colon needs `./`.
 */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return { engine: "postgres", url };
  if (url === ":memory:" || url === "memory:") return { engine: "sqlite", memory: true };
  if (url.startsWith("file:")) {
    const rest = url.slice("file:".length);
    if (rest.includes("?") || rest.includes("#") || rest.length === 0) {
      throw new ValidationError(`database URL ${url}: a file: URL takes a path and no query`, [`--db: ${url}`]);
    }
    return { engine: "sqlite", memory: false, path: rest.startsWith("//") ? fileURLToPath(url) : rest };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(url)?.[1]; // two letters or more: `C:\…` stays a path
  if (scheme !== undefined) {
    throw new ValidationError(`unknown database URL scheme ${scheme}: in ${url}`, [
      "--db: postgres://…, postgresql://…, file:<path>, a SQLite file path, or :memory:",
    ]);
  }
  if (url.length === 0) throw new ValidationError("the database URL is empty", ["--db: empty"]);
  return { engine: "sqlite", memory: false, path: url };
}

/** The first bytes of every SQLite database file. */
const SQLITE_MAGIC = "SQLite format 3\0";

/**
 * Checks a SQLite file before opening it: NotFoundError when it is absent and may not be created;
 * StorageError naming the file when it is not a SQLite database, or is shorter than its header says
 * (truncated, and no write-ahead log to finish it). A missing or empty file passes when `create`.
 */
export function checkSqliteFile(path: string, create: boolean): void {
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
export function namingTheFile(error: unknown, url: string): unknown {
  if (!(error instanceof StorageError)) return error;
  let location: DatabaseLocation;
  try {
    location = parseDatabaseUrl(url);
  } catch {
    return error;
  }
  if (location.engine !== "sqlite" || location.memory || error.message.includes(location.path)) return error;
  const { operation, retryable } = error.details;
  const reason = error.message.slice(operation.length + 2);
  return new StorageError(operation, `${location.path}: ${reason}`, { cause: error.cause ?? error, retryable });
}

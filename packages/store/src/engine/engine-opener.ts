import type { Engine } from "./dialect.ts";
import type { EngineAdapter } from "./engine-adapter.ts";

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
 * One engine's entry in the URL switch (see engines.ts): which URLs are its, and how its adapter opens,
 * loading its driver only then (a SQLite user never loads pg, and the reverse).
 */
export interface EngineOpener {
  readonly engine: Engine;
  /** The URL forms it takes, for the error on a URL no engine takes (`postgres://…`). */
  readonly forms: readonly string[];
  /** Whether `url` is this engine's. */
  matches(url: string): boolean;
  /** Opens the adapter on `url` (ValidationError for a malformed URL of this engine). */
  open(url: string, options: OpenEventStoreOptions): Promise<EngineAdapter>;
  /** An error from opening or migrating the database at `url`, reworded for the user where it helps. */
  explain(error: unknown, url: string): unknown;
}

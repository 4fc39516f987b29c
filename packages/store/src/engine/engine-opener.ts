import { type Keyring, type OptionShape, OptionValues } from "@palimpsest/core";
import type { Engine } from "./dialect.ts";
import type { EngineAdapter } from "./engine-adapter.ts";
import type { PartitionTables } from "./table-partitions.ts";

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
  /**
   * The tenant whose sessions the store reads and writes (default DEFAULT_TENANT): every read, write,
   * count, feed and erasure of the store is confined to it, and another tenant's session is NotFound as an
   * unknown id is. On PostgreSQL row-level security enforces it too (see docs/tenants.md). A ValidationError
   * for anything but an id (at most 256 UTF-8 bytes, see ID_LIMITS).
   */
  tenant?: string;
  /**
   * Encrypts every session's content under a data key of its own that `keyring` keeps (see Keyring and
   * docs/encryption.md); an erasure destroys the key, so no copy of the content anywhere can be read again.
   * Ids, roles, times and token counts stay readable. Without it content is stored as it is, and a store
   * opened without it cannot read content written with it (a StorageError).
   */
  keyring?: Keyring;
  /**
   * Index each appended message's words for recall (docs/recall.md); default true. With false the store
   * writes nothing to the search index (its appends skip that work) and its searches find nothing new;
   * what was indexed before stays searchable. A store with a keyring never indexes.
   */
  search?: boolean;
}

/** Every key of OpenEventStoreOptions with its value's schema (checkOptions); tenant and keyring are checked further. */
export const EVENT_STORE_OPTION_SHAPE: OptionShape<OpenEventStoreOptions> = {
  sqlitePollMs: OptionValues.ms,
  sqliteBusyTimeoutMs: OptionValues.ms,
  create: OptionValues.flag,
  tenant: OptionValues.text,
  keyring: OptionValues.object,
  search: OptionValues.flag,
};

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
  /** Opens the adapter of `tenant` (checked) on `url` (ValidationError for a malformed URL of this engine). */
  open(url: string, options: OpenEventStoreOptions, tenant: string): Promise<EngineAdapter>;
  /** An error from opening or migrating the database at `url`, reworded for the user where it helps. */
  explain(error: unknown, url: string): unknown;
  /** Divides the log's tables into hash partitions by session (partitionLog); absent where the engine cannot. */
  readonly partitionTables?: PartitionTables;
}

import type { ColumnType, Generated } from "kysely";

/** A timestamp: written as an ISO string; read back as a Date (PostgreSQL) or the same string (SQLite). */
type Timestamp = ColumnType<Date | string, string, string>;

/** One row of the append-only log. `data` is the event's JSON text, stored verbatim (see migrations.ts). */
export interface EventsTable {
  position: Generated<number>;
  event_id: string;
  session_id: string;
  seq: number;
  type: string;
  schema_version: number;
  occurred_at: Timestamp;
  causation_id: string | null;
  correlation_id: string | null;
  idempotency_key: string | null;
  /** SHA-256 of type, schema version and data, written only by appends with an idempotency key. */
  content_hash: string | null;
  tenant_id: string;
  data: string;
  /** When the store wrote the row (occurred_at is when it happened: an import keeps the source's time). */
  recorded_at: Timestamp | null;
}

/** The session catalogue: the stream version and view version, kept beside the log for cheap CAS. */
export interface SessionsTable {
  session_id: string;
  version: number;
  view_version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  tenant_id: string;
  /** When the session's content was erased (migration 0010); null while it has not been. */
  erased_at: Timestamp | null;
  /** The session's name: its source's external id (migration 0011, see session-name.ts); null when it has none. */
  name: string | null;
}

/** Idempotency keys already used on a session, with the content hash and seq range of their batch. */
export interface IdempotencyKeysTable {
  session_id: string;
  idempotency_key: string;
  content_hash: string;
  first_seq: number;
  last_seq: number;
}

/**
 * The ids one session's log holds that must stay unique across its history (migration 0014): message,
 * answered call, compaction and turn keys (core's log-keys.ts), written by the append that adds them.
 */
export interface LogKeysTable {
  session_id: string;
  key: string;
}

/** The latest view snapshot per session (a cache, never the truth). */
export interface SnapshotsTable {
  session_id: string;
  seq: number;
  format: number;
  /** The state's JSON text; empty when it is sealed (`sealed`). */
  state: string;
  checksum: string;
  /** An encrypted store's state, sealed as bytes (migration 0017); null otherwise. */
  sealed: Uint8Array | null;
}

/** The kysely view of the log's five tables; each feature adds its own to a handle (`withTables`). */
export interface StoreDatabase {
  events: EventsTable;
  sessions: SessionsTable;
  idempotency_keys: IdempotencyKeysTable;
  snapshots: SnapshotsTable;
  log_keys: LogKeysTable;
}

import type { EventMetadata } from "../events/envelope.ts";
import type { DomainEvent } from "../events/event-types.ts";
import type { StoredEvent } from "../events/parse-event.ts";
import type { LogKey } from "../session/log-keys.ts";

/** What the writer believes the stream's version (its last seq) to be. */
export type ExpectedVersion = "any" | "no-stream" | number;

/** Options of one append: the whole batch commits in one transaction or not at all. */
export interface AppendOptions {
  expectedVersion: ExpectedVersion;
  /** A retry with the same key and identical events returns the first result; different events fail. */
  idempotencyKey?: string;
  /**
   * Compare-and-set on the session's view version, under the per-session lock: the append commits only
   * while the view version is `expected`, and sets it to `expected + 1`. Used by supersede commits.
   */
  viewVersion?: { expected: number };
  /**
   * Log keys (see log-keys.ts) the session's log must not hold yet, checked under the per-session lock:
   * when one is held, nothing is written and the append throws InvariantViolation `log-key-taken` naming
   * them. What lets the runtime decide on its state alone and leave uniqueness over the history to the log.
   */
  freshKeys?: readonly LogKey[];
  metadata?: EventMetadata;
  /**
   * When the events happened, when that is not now (an import keeps its transcript's times): one ISO
   * time for all of them, or one per event in order (undefined: now). Stored as `occurredAt`; `recordedAt`
   * is always now.
   */
  occurredAt?: string | readonly (string | undefined)[];
}

/** The outcome of an append. */
export interface AppendResult {
  /** The stream's version after the append: the seq of its last event. */
  nextExpectedVersion: number;
  /** The stored events, in seq order (the originals when an idempotent retry matched). */
  events: StoredEvent[];
  /** True when an idempotency key matched an earlier append and nothing new was written. */
  replayed: boolean;
}

/** A slice of one session's stream. */
export interface ReadStreamOptions {
  /** First seq to return (inclusive); default 1. */
  fromSeq?: number;
  /** Last seq to return (inclusive). */
  toSeq?: number;
}

/** Where a reader of the global log stands: opaque text, compared only by the store ("" = the start). */
export type GlobalCheckpoint = string;

/** A slice of the global log, in the store's global order (commit-visibility order, not always position). */
export interface ReadAllOptions {
  /** Return events after this checkpoint (one a GlobalPage returned); default "" (the start). */
  after?: GlobalCheckpoint;
  /** At most this many events. */
  limit?: number;
}

/** A page of the global log and the checkpoint just after its last event (the input one when empty). */
export interface GlobalPage {
  events: StoredEvent[];
  checkpoint: GlobalCheckpoint;
}

/** One row of the session catalogue. */
export interface SessionSummary {
  sessionId: string;
  version: number;
  viewVersion: number;
  createdAt: string;
  updatedAt: string;
  /** When the session's content was erased (it takes no more writes); absent while it has not been. */
  erasedAt?: string;
  /**
   * The session's name: its source's external id (a Claude Code session id, a subagent's agent id, an
   * SDK's session id), written by the append that started it; absent when its start carries none. Not
   * unique; kept by an erasure (it is an id, not content).
   */
  name?: string;
}

/** The seqs of the batch an idempotency key names (see EventStore.keyedBatch). */
export interface KeyedBatch {
  firstSeq: number;
  lastSeq: number;
}

/** Options of an erasure. */
export interface EraseOptions {
  /** Why (a ticket id, "retention"), kept in the session.erased event: operator text, never session content. */
  reason?: string;
}

/** What an erasure did (or, when the session was erased already, what the first one did). */
export interface ErasureResult {
  sessionId: string;
  /** False when the session had been erased before: nothing was changed. */
  erased: boolean;
  /** When the session's content was erased (the session.erased event's time). */
  erasedAt: string;
  /** The seq of the session.erased event (the stream's last). */
  seq: number;
  /** Earlier events rewritten to their skeletons. */
  events: number;
  /** Messages that became tombstones (appended, or placed by a compaction). */
  messages: number;
}

/** Options of a purge of erased content from the database's files (EventStore.purgeErased). */
export interface PurgeOptions {
  /**
   * How long (ms) the purge may wait, for each relation it rewrites, on other transactions: for the lock
   * the rewrite takes (PostgreSQL: the table's, tried in short attempts so that writers queue behind it
   * only briefly; SQLite: the file's write lock) and for transactions older than the purge, whose
   * snapshots keep old row versions alive (PostgreSQL) or the WAL's frames in use (SQLite). Default 60,000.
   */
  waitTimeoutMs?: number;
}

/** One relation a purge rewrote: its size on disk before and after, and how long the rewrite held it. */
export interface PurgedRelation {
  /** PostgreSQL: a table (its TOAST table and indexes rewritten with it); SQLite: the database file, then its WAL. */
  name: string;
  /** Its size on disk before the rewrite (PostgreSQL: with its TOAST table and indexes). */
  bytesBefore: number;
  /** Its size on disk after it. */
  bytesAfter: number;
  /** How long the rewrite took (PostgreSQL: the table is locked against reads and writes for that long). */
  ms: number;
}

/** What a purge did: the relations it rewrote, in order, and how long it took. */
export interface PurgeResult {
  /** The relations rewritten, in the order they were (none for a store without files). */
  relations: PurgedRelation[];
  /** How long it waited on other transactions (older snapshots, locks held) before rewriting. */
  waitedMs: number;
  /** How long the whole purge took, waits included. */
  ms: number;
}

/**
 * The append-only event log. One stream per session; events are never deleted, and updated only by an
 * erasure, which keeps every event and replaces its data by its skeleton (see `erase`).
 * Implementations must pass the contract suite (@palimpsest/store/contract, describeEventStoreContract).
 */
export interface EventStore {
  /** Appends a batch atomically; throws ConcurrencyConflict (with the actual version) or IdempotencyMismatch. */
  append(sessionId: string, events: readonly DomainEvent[], options: AppendOptions): Promise<AppendResult>;
  /** Reads one session's events in seq order; an unknown session reads as empty. */
  readStream(sessionId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /**
   * Reads the global log after a checkpoint, only up to what every reader can see: paging by the returned
   * checkpoint never skips a late commit nor repeats an event. Throws ValidationError for a foreign checkpoint.
   */
  readAll(options?: ReadAllOptions): Promise<GlobalPage>;
  /** The checkpoint just after the last event `readAll` can return now: where a reader of only new events starts. */
  globalHead(): Promise<GlobalCheckpoint>;
  /**
   * Which of `keys` (core's log keys: ids that must stay unique over the session's whole log) the log of
   * `sessionId` holds; what the decider is given as `known` (see commandKeys). Empty for an unknown session.
   */
  knownKeys(sessionId: string, keys: readonly LogKey[]): Promise<Set<LogKey>>;
  /**
   * Where the batch appended under `idempotencyKey` sits in the session's log, or undefined when the key
   * was never used there (or the session was erased since): one indexed lookup, so a caller can tell a
   * retry from a first attempt without reading the log.
   */
  keyedBatch(sessionId: string, idempotencyKey: string): Promise<KeyedBatch | undefined>;
  /** The session's version and view version, or undefined when it has no events. */
  getSession(sessionId: string): Promise<SessionSummary | undefined>;
  /** All sessions, newest first. */
  listSessions(): Promise<SessionSummary[]>;
  /**
   * Erases a session's content in one transaction (docs/erasure.md): every event is rewritten to its
   * skeleton, a session.erased event is appended, and the copies beside the log (snapshot, pre-compaction
   * candidate, idempotency hashes, hand-off reasons) are dropped; later appends are refused with
   * InvariantViolation `session-erased`. NotFoundError for an unknown session; a second call changes nothing.
   */
  erase(sessionId: string, options?: EraseOptions): Promise<ErasureResult>;
  /**
   * Rewrites the relations of the database that held session content, so that no copy of the content of
   * the sessions erased before it began stays in the database's files (docs/erasure.md): an erasure
   * leaves old row versions and freed space that still hold it. Other sessions' reads and writes wait
   * while a relation is rewritten, and go on after; running it again rewrites again and loses nothing.
   * A store that keeps nothing on disk returns no relations. ValidationError for bad options; StorageError
   * when the database role may not rewrite a table (PostgreSQL: VACUUM FULL needs its owner), or
   * (retryable) when other transactions kept it waiting longer than `waitTimeoutMs`.
   */
  purgeErased(options?: PurgeOptions): Promise<PurgeResult>;
  /** Releases connections. */
  close(): Promise<void>;
}

import type { EventMetadata } from "../events/envelope.ts";
import type { DomainEvent } from "../events/event-types.ts";
import type { StoredEvent } from "../events/parse-event.ts";

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
  metadata?: EventMetadata;
  tenantId?: string;
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
}

/**
 * The append-only event log. One stream per session; events are never updated or deleted.
 * Implementations must pass the contract suite in test/contract.
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
  /** The session's version and view version, or undefined when it has no events. */
  getSession(sessionId: string): Promise<SessionSummary | undefined>;
  /** All sessions, newest first. */
  listSessions(): Promise<SessionSummary[]>;
  /** Releases connections. */
  close(): Promise<void>;
}

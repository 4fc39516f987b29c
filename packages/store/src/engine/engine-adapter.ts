import type { CompiledQuery, Kysely } from "kysely";
import type { PreparedBatch } from "./append-batch.ts";
import type { ChangeSource } from "./change-notifier.ts";
import type { StoreDatabase } from "./database-schema.ts";
import type { Dialect } from "./dialect.ts";
import type { PurgeFiles } from "./erasure-purge.ts";
import type { GlobalHead, GlobalLogReader, VisibilityWait } from "./global-log.ts";
import type { GuardedWrite, LockedWrite } from "./guarded-write.ts";

/** What an append wrote: the stream's new version and each event's position, in batch order. */
export interface WrittenBatch {
  version: number;
  positions: number[];
}

/**
 * What differs between engines, and nothing else: how a batch is written under the per-session lock
 * (one statement on PostgreSQL, a `BEGIN IMMEDIATE` transaction on SQLite), how global readers page
 * the log, and how other processes' commits are heard.
 * Every other query is shared, written against the adapter's Dialect.
 */
export interface EngineAdapter {
  /** The engine's SQL where it differs from the others' (the log's and the features' queries use it). */
  readonly dialect: Dialect;
  readonly db: Kysely<StoreDatabase>;
  /**
   * Claims the next versions and writes the batch atomically. Returns undefined, having written nothing,
   * when the expected version, view version or idempotency key stood in the way; the caller finds out which.
   */
  writeBatch(batch: PreparedBatch): Promise<WrittenBatch | undefined>;
  /**
   * Runs the batches' statements as writeBatch does, then `statements` (a feature's, as its guarded and
   * locked writes run them), one after another in one transaction that is then rolled back, so what the
   * engine and the process prepare, plan or compile on first use is ready for the first write: nothing is
   * written (on PostgreSQL the positions the inserts drew stay drawn, gaps as any failed append leaves), and
   * no other write of the process can land inside it (on SQLite it runs synchronously, on PostgreSQL on a
   * connection of its own). Never waits long for a lock: a busy database is an error.
   */
  rehearse(batches: readonly PreparedBatch[], statements?: readonly CompiledQuery[]): Promise<void>;
  /** Pages the global log in the engine's commit-visibility order (see global-log.ts). */
  readonly readGlobalLog: GlobalLogReader;
  /** The checkpoint after the last event global readers can see now (see global-log.ts). */
  readonly globalHead: GlobalHead;
  /** Waits until every commit so far is visible to global readers (see global-log.ts). */
  readonly awaitVisible: VisibilityWait;
  /**
   * Hears appends committed by other processes: LISTEN/NOTIFY on PostgreSQL, a cheap poll of
   * `PRAGMA data_version` on SQLite. Runs only while the store has listeners.
   */
  readonly listen: ChangeSource;
  /** Runs a compare-and-set and the writes it guards atomically (the read models' checkpointed pages). */
  readonly writeGuarded: GuardedWrite;
  /** Runs reads, then the writes decided from them, under the lock the first read takes (see guarded-write.ts). */
  readonly writeLocked: LockedWrite;
  /**
   * Runs an erasure (see erase-session.ts) as a LockedWrite: read and rewritten under the session's lock,
   * leaving as little of the old text in the engine's files as it can: on SQLite freed space is zeroed
   * (secure_delete) and the WAL checkpointed and truncated afterwards; on PostgreSQL old row versions stay
   * in the table's files until purgeFiles rewrites them (docs/erasure.md).
   */
  readonly writeErasure: LockedWrite;
  /**
   * Rewrites what erasures left in the engine's files (see erasure-purge.ts): on PostgreSQL the tables
   * named (VACUUM FULL, each in turn), on SQLite the whole file (VACUUM, then the WAL emptied).
   */
  readonly purgeFiles: PurgeFiles;
}

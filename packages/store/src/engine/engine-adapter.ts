import type { Expression, Kysely, SqlBool } from "kysely";
import type { PreparedBatch } from "./append-batch.ts";
import type { ChangeSource } from "./change-notifier.ts";
import type { StoreDatabase } from "./database-schema.ts";

/** The database engines the store runs on. */
export type Engine = "postgres" | "sqlite";

/** What an append wrote: the stream's new version and each event's position, in batch order. */
export interface WrittenBatch {
  version: number;
  positions: number[];
}

/**
 * What differs between engines, and nothing else: how a batch is written under the per-session lock
 * (one statement on PostgreSQL, a `BEGIN IMMEDIATE` transaction on SQLite) and which rows global readers
 * may see. Every other query is shared.
 */
export interface EngineAdapter {
  readonly engine: Engine;
  readonly db: Kysely<StoreDatabase>;
  /**
   * Claims the next versions and writes the batch atomically. Returns undefined, having written nothing,
   * when the expected version, view version or idempotency key stood in the way; the caller finds out which.
   */
  writeBatch(batch: PreparedBatch): Promise<WrittenBatch | undefined>;
  /** A filter on `events` hiding rows that some earlier, still open transaction could precede. */
  readonly visibilityBarrier: Expression<SqlBool> | undefined;
  /**
   * PostgreSQL only: hears appends committed by other processes (LISTEN/NOTIFY). SQLite has none: its
   * embedded use case is one writer process, whose appends its store tells listeners in process.
   */
  readonly listen?: ChangeSource;
}

import { checkOptionKeys, type PurgedRelation, type PurgeOptions, ValidationError } from "@palimpsest/core";
import type { ContentColumns, StoreFeature } from "./store-feature.ts";

/** How long, by default, a purge waits on other transactions for each relation it rewrites (ms). */
export const DEFAULT_PURGE_WAIT_MS = 60_000;

/**
 * The log's columns that hold session content or a hash of it, by table: what an erasure rewrites or
 * deletes there (the events' data, content hashes and, on PostgreSQL, search vectors; the snapshots; the
 * idempotency keys' hashes). Ids (`log_keys`, the sessions' names) are kept by an erasure and are not
 * listed. SQLite's search index is a table of its own, which its purge (the whole file) covers.
 */
export const LOG_CONTENT_COLUMNS: ContentColumns = {
  events: ["data", "content_hash", "search"],
  snapshots: ["state", "checksum", "sealed"],
  idempotency_keys: ["content_hash"],
};

/**
 * Rewrites `tables` (PostgreSQL; SQLite rewrites its whole file) so that no byte of a row version or
 * freed space an erasure left stays in the database's files, waiting at most `waitTimeoutMs` on other
 * transactions for each; what it rewrote, and how long it waited in all.
 */
export type PurgeFiles = (
  tables: readonly string[],
  waitTimeoutMs: number,
) => Promise<{ relations: PurgedRelation[]; waitedMs: number }>;

/** The tables holding content of the log and of `features`, in that order: what a purge rewrites. */
export function contentTables(features: readonly StoreFeature[]): string[] {
  return [LOG_CONTENT_COLUMNS, ...features.map((f) => f.contentColumns ?? {})].flatMap((columns) =>
    Object.keys(columns),
  );
}

/** The purge's wait bound from its options; ValidationError for an unknown option or a bad bound. */
export function checkPurgeOptions(options: PurgeOptions): number {
  if (typeof options !== "object" || options === null) {
    throw new ValidationError("purgeErased takes an options object", ["options: not an object"]);
  }
  checkOptionKeys("purgeErased", options, { waitTimeoutMs: true });
  const { waitTimeoutMs = DEFAULT_PURGE_WAIT_MS } = options;
  if (!Number.isSafeInteger(waitTimeoutMs) || waitTimeoutMs < 0) {
    throw new ValidationError(
      "purgeErased: waitTimeoutMs must be a whole number of milliseconds, 0 or more",
      [`waitTimeoutMs: ${String(waitTimeoutMs)}`],
      { path: "waitTimeoutMs" },
    );
  }
  return waitTimeoutMs;
}

/** A duration in ms to a tenth of a millisecond, as a purge reports it. */
export function tenths(ms: number): number {
  return Math.round(ms * 10) / 10;
}

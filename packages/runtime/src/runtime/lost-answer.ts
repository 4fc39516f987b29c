import { canonicalJson, type DomainEvent, isSqliteAnswer, StorageError, type StoredEvent } from "@palimpsest/core";

/**
 * Whether an append failed so that it may or may not have committed: a retryable STORAGE failure, in
 * practice a PostgreSQL connection that dropped under it (the server may have committed and its answer
 * been lost) or a server going down. The store makes a read, and a write the server rolled back, again
 * itself, but not such an append: only the log can tell whether it landed (see Session's #landed). Not
 * SQLite's lock wait that ran out: the store waited the whole busy timeout, wrote nothing, and appending
 * again would only stretch the bound the caller set.
 */
export function answerMayBeLost(error: unknown): error is StorageError {
  return error instanceof StorageError && error.details.retryable && !isSqliteAnswer(error);
}

/**
 * Whether `stored` (the log's events right after the version an append expected) are the batch `events`
 * that append sent: the same types and the same data, compared canonically. A batch's messages carry the ids
 * they were given or fresh uuidv7s, and an unkeyed compaction a fresh id, so events equal to these are this
 * batch, committed before its answer was lost (or another writer's identical one, which would have refused
 * this append's messages, ids or turn completion as already in the log: the outcome is the same).
 */
export function isSameBatch(stored: readonly StoredEvent[], events: readonly DomainEvent[]): boolean {
  return (
    stored.length === events.length &&
    stored.every((e, i) => e.type === events[i]?.type && canonicalJson(e.data) === canonicalJson(events[i]?.data))
  );
}

import { backoff, isPalimpsestError, isSqliteAnswer, StorageError } from "@palimpsest/core";

/**
 * SQLSTATE classes and codes that say the operation may succeed if made again: connection exceptions
 * (08), the server shutting down or starting (57P01–57P03), serialization failures and deadlocks (40001,
 * 40P01), and too many connections (53300).
 */
const RETRYABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "40001", "40P01", "53300"]);

/** Node socket errors of a connection that dropped or could not be made. */
const RETRYABLE_ERRNOS = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTCONN"]);

/**
 * pg's messages for a connection that ended under a query, or before it on a checked-out client
 * ("Client has encountered a connection error and is not queryable"); it sets no code on these.
 */
const DROPPED_CONNECTION =
  /Connection terminated|connection (?:is )?(?:closed|ended)|Client was closed|encountered a connection error/i;

/**
 * True when a driver error is transient: a dropped or refused PostgreSQL connection, a server going
 * down or coming up, a serialization failure, or SQLite's busy / locked answer.
 */
export function isRetryableDriverError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== "object") return false;
  const code = typeof e.code === "string" ? e.code : "";
  if (code.startsWith("08") || RETRYABLE_SQLSTATES.has(code) || RETRYABLE_ERRNOS.has(code)) return true;
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return true;
  return typeof e.message === "string" && DROPPED_CONNECTION.test(e.message);
}

/**
 * The messages of a call on a database the store closed: kysely's once its driver is destroyed, pg's pool
 * after `end()`, better-sqlite3's database after `close()`. Both engines say it the same way then (as the
 * in-memory store does).
 */
const CLOSED_DATABASE =
  /^(?:driver has already been destroyed|Cannot use a pool after calling end on the pool|The database connection is not open)$/;

/**
 * Runs a database operation; any error that is not already a Palimpsest error becomes a StorageError,
 * marked retryable when the driver's error is transient (see isRetryableDriverError); a call on a closed
 * store says so (`the store is closed`), whichever engine it is.
 */
export async function guardStorage<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isPalimpsestError(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (CLOSED_DATABASE.test(message)) throw new StorageError(operation, "the store is closed", { cause: error });
    throw new StorageError(operation, message, { cause: error, retryable: isRetryableDriverError(error) });
  }
}

/** Attempts at an operation againOnDrop makes (the first and two more). */
const DROP_ATTEMPTS = 3;
/** The first pause between them, in ms (then doubled, at most four times this). */
const DROP_PAUSE_MS = 50;

/** True when `error` is a transient driver error, or a StorageError that says so. */
const isTransient = (error: unknown): boolean =>
  isRetryableDriverError(error) || (error instanceof StorageError && error.details.retryable === true);

/**
 * Runs `run`, made again (DROP_ATTEMPTS in all, with short pauses) while it fails on a dropped connection
 * or a server going down (isRetryableDriverError), so the caller does not retry what the store can; the
 * last failure is thrown. `run` is told which attempt it is (1 first); `beforeAgain` runs before each new
 * attempt; `again` narrows which failures are made again. Only for operations a second attempt cannot make
 * count twice: reads, writes that look first at what the first attempt may have stored, writes that leave
 * the same rows however often they run (a delete, an upsert of one row), and writes the server rolled back
 * (wasRolledBack).
 */
export async function againOnDrop<T>(
  run: (attempt: number) => Promise<T>,
  beforeAgain?: () => void,
  again: (error: unknown) => boolean = isTransient,
): Promise<T> {
  const pauses = backoff(DROP_PAUSE_MS, DROP_PAUSE_MS * 4);
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt);
    } catch (error) {
      if (attempt >= DROP_ATTEMPTS || !again(error)) throw error;
      beforeAgain?.();
      await pauses.pause(DROP_PAUSE_MS * 4);
    }
  }
}

/** guardStorage of a read: made again on a dropped connection (againOnDrop), as a read can always be. */
export function guardRead<T>(operation: string, run: () => Promise<T>): Promise<T> {
  return guardStorage(operation, () => againOnDrop(run));
}

/**
 * Whether a write that failed with `error` is made again by guardWrite: a transient failure (isTransient),
 * but not SQLite's busy answer, whose wait already ran the whole busy timeout and wrote nothing (waiting
 * again would only stretch the bound the caller set: isSqliteAnswer, the line the runtime draws too).
 */
const droppedNotBusy = (error: unknown): boolean => isTransient(error) && !isSqliteAnswer(error);

/**
 * guardStorage of a write whose answer a dropped connection may have lost after it committed: made again
 * (againOnDrop) while its connection drops, `run` told whether an earlier attempt was made (`again`), so
 * that it can look first for what that attempt stored (its row, under an id or token fixed before the first
 * attempt) and return it as if the answer had come. `run` must be one statement or transaction, or a
 * write that leaves the same rows however often it runs.
 */
export function guardWrite<T>(operation: string, run: (again: boolean) => Promise<T>): Promise<T> {
  return guardStorage(operation, () => againOnDrop((attempt) => run(attempt > 1), undefined, droppedNotBusy));
}

/**
 * True when PostgreSQL aborted the statement's transaction itself: a deadlock (40P01) or a serialization
 * failure (40001). Nothing of it was written, so the same write can always be made again.
 */
export function wasRolledBack(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}

import { isPalimpsestError, StorageError } from "@palimpsest/core";

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
 * Runs a database operation; any error that is not already a Palimpsest error becomes a StorageError,
 * marked retryable when the driver's error is transient (see isRetryableDriverError).
 */
export async function guardStorage<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isPalimpsestError(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new StorageError(operation, message, { cause: error, retryable: isRetryableDriverError(error) });
  }
}

import { backoff, StorageError } from "@palimpsest/core";
import type BetterSqlite3 from "better-sqlite3";

/** The first pause between two tries, and the longest (each pause doubles, then a random part is cut off). */
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 20;

/** True when SQLite answered that another connection holds the lock it needs (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * Runs `attempt` (a statement, or a whole synchronous transaction) and, while SQLite answers busy, runs it
 * again after a pause on a timer, so the event loop keeps turning while another process holds the lock
 * (better-sqlite3's own busy_timeout sleeps inside the call, freezing the process). Only an attempt that
 * left no transaction open is made again: it changed nothing. Past `timeoutMs` it throws a retryable
 * StorageError naming the file and the wait.
 */
export async function retryWhileBusy<T>(
  database: BetterSqlite3.Database,
  timeoutMs: number,
  operation: string,
  attempt: () => T | Promise<T>,
): Promise<T> {
  const start = performance.now();
  const pauses = backoff(FIRST_PAUSE_MS, LONGEST_PAUSE_MS);
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isSqliteBusy(error) || database.inTransaction) throw error;
      const waited = performance.now() - start;
      if (waited >= timeoutMs) {
        const message = `the database file ${database.name} is locked by another process; waited ${Math.round(waited)} ms`;
        throw new StorageError(operation, message, { cause: error, retryable: true });
      }
      await pauses.pause(timeoutMs - waited);
    }
  }
}

import type BetterSqlite3 from "better-sqlite3";
import type { CompiledQuery } from "kysely";
import type pg from "pg";
import { retryWhileBusy } from "./sqlite-busy.ts";

/**
 * Runs `guard`, then `statements`, in one transaction, committing only when the guard changed a row
 * (a compare-and-set); returns false, having changed nothing, when it changed none.
 */
export type GuardedWrite = (guard: CompiledQuery, statements: readonly CompiledQuery[]) => Promise<boolean>;

/** Thrown inside the transaction to roll it back when the guard changed nothing. */
class GuardFailed extends Error {}

/**
 * SQLite: one `BEGIN IMMEDIATE` transaction run synchronously from begin to commit, like an append, so
 * no other statement of this process can slip into it (a kysely transaction would hold the connection's
 * transaction open across awaits, and an append in between would become part of it). While another
 * process holds the write lock, the transaction is tried again on a timer, up to `busyTimeoutMs`.
 */
export function sqliteGuardedWrite(database: BetterSqlite3.Database, busyTimeoutMs: number): GuardedWrite {
  const run = database.transaction((guard: CompiledQuery, statements: readonly CompiledQuery[]) => {
    if (database.prepare(guard.sql).run(guard.parameters).changes === 0) throw new GuardFailed();
    for (const s of statements) database.prepare(s.sql).run(s.parameters);
  });
  return async (guard, statements) => {
    try {
      await retryWhileBusy(database, busyTimeoutMs, "writeGuarded", () => run.immediate(guard, statements));
      return true;
    } catch (error) {
      if (error instanceof GuardFailed) return false;
      throw error;
    }
  };
}

/**
 * SQLite, for an erasure: the guarded write with `secure_delete` on (the space the old texts leave is
 * overwritten with zeros, not left in free pages), then a checkpoint that truncates the WAL, whose frames
 * still hold the pages as they were. The checkpoint is best effort: a reader of an older page keeps those
 * frames until it ends, and the next checkpoint (SQLite's automatic one included) overwrites them.
 */
export function sqliteErasureWrite(database: BetterSqlite3.Database, busyTimeoutMs: number): GuardedWrite {
  const write = sqliteGuardedWrite(database, busyTimeoutMs);
  return async (guard, statements) => {
    const before = database.pragma("secure_delete", { simple: true });
    database.pragma("secure_delete = ON");
    let written: boolean;
    try {
      written = await write(guard, statements);
    } finally {
      database.pragma(`secure_delete = ${Number(before) === 1 ? "ON" : "OFF"}`);
    }
    if (!written) return false;
    try {
      database.pragma("wal_checkpoint(TRUNCATE)");
    } catch {
      // The erasure is committed; the frames are overwritten by the next checkpoint that can run.
    }
    return true;
  };
}

/** PostgreSQL: BEGIN, the guard, the statements, COMMIT, on one pooled connection. */
export function postgresGuardedWrite(pool: pg.Pool): GuardedWrite {
  return async (guard, statements) => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      if (((await client.query(guard.sql, [...guard.parameters])).rowCount ?? 0) === 0) {
        await client.query("ROLLBACK");
        return false;
      }
      for (const s of statements) await client.query(s.sql, [...s.parameters]);
      await client.query("COMMIT");
      return true;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {}); // the statement's error is the one to report
      throw error;
    } finally {
      client.release();
    }
  };
}

import type BetterSqlite3 from "better-sqlite3";
import type { CompiledQuery } from "kysely";
import type pg from "pg";
import { retryWhileBusy } from "./sqlite-busy.ts";

/**
 * Runs `guard`, then `statements`, in one transaction, committing only when the guard changed a row
 * (a compare-and-set); returns false, having changed nothing, when it changed none.
 */
export type GuardedWrite = (guard: CompiledQuery, statements: readonly CompiledQuery[]) => Promise<boolean>;

/** Rows of each read, in the order of the reads. */
export type ReadRows = Record<string, unknown>[][];

/** What a locked write decides from its reads: the guard and the writes (as a GuardedWrite runs them), and its outcome. */
export interface LockedPlan<T> {
  guard: CompiledQuery | undefined;
  statements: readonly CompiledQuery[];
  result: T;
}

/**
 * Runs `reads`, then the guard and writes `plan` decides from their rows, in one write transaction that
 * holds the lock from its first statement (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: the first read must lock
 * the rows it reads, `FOR UPDATE`), so no other writer can move between what was read and what is written
 * (an optimistic read-then-compare-and-set would lose every race against a steady writer). No guard: only
 * the result (nothing written). A guard that changes no row rolls back and rejects: under the lock it cannot.
 */
export type LockedWrite = <T>(reads: readonly CompiledQuery[], plan: (rows: ReadRows) => LockedPlan<T>) => Promise<T>;

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

/** SQLite: the reads, the plan and its writes in one `BEGIN IMMEDIATE` transaction run synchronously (see sqliteGuardedWrite). */
export function sqliteLockedWrite(database: BetterSqlite3.Database, busyTimeoutMs: number): LockedWrite {
  return (reads, plan) => {
    const run = database.transaction(() => {
      const rows = reads.map((q) => database.prepare(q.sql).all(q.parameters) as Record<string, unknown>[]);
      const planned = plan(rows);
      if (planned.guard === undefined) return planned.result;
      if (database.prepare(planned.guard.sql).run(planned.guard.parameters).changes === 0) throw new GuardFailed();
      for (const s of planned.statements) database.prepare(s.sql).run(s.parameters);
      return planned.result;
    });
    return retryWhileBusy(database, busyTimeoutMs, "writeLocked", () => run.immediate());
  };
}

/**
 * SQLite, for an erasure: the locked write with `secure_delete` on (the space the old texts leave is
 * overwritten with zeros, not left in free pages), then a checkpoint that truncates the WAL, whose frames
 * still hold the pages as they were. The checkpoint is best effort: a reader of an older page keeps those
 * frames until it ends, and the next checkpoint (SQLite's automatic one included) overwrites them.
 */
export function sqliteErasureWrite(database: BetterSqlite3.Database, busyTimeoutMs: number): LockedWrite {
  const write = sqliteLockedWrite(database, busyTimeoutMs);
  return async (reads, plan) => {
    const before = database.pragma("secure_delete", { simple: true });
    database.pragma("secure_delete = ON");
    let result: Awaited<ReturnType<typeof plan>["result"]>;
    try {
      result = await write(reads, plan);
    } finally {
      database.pragma(`secure_delete = ${Number(before) === 1 ? "ON" : "OFF"}`);
    }
    try {
      database.pragma("wal_checkpoint(TRUNCATE)");
    } catch {
      // The erasure is committed; the frames are overwritten by the next checkpoint that can run.
    }
    return result;
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

/** PostgreSQL: BEGIN, the reads (the first locking its rows), the plan's guard and writes, COMMIT, on one pooled connection. */
export function postgresLockedWrite(pool: pg.Pool): LockedWrite {
  return async (reads, plan) => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const rows: ReadRows = [];
      for (const q of reads) rows.push((await client.query(q.sql, [...q.parameters])).rows);
      const planned = plan(rows);
      if (planned.guard !== undefined) {
        if (((await client.query(planned.guard.sql, [...planned.guard.parameters])).rowCount ?? 0) === 0) {
          throw new GuardFailed();
        }
        for (const s of planned.statements) await client.query(s.sql, [...s.parameters]);
      }
      await client.query("COMMIT");
      return planned.result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {}); // the statement's error is the one to report
      throw error;
    } finally {
      client.release();
    }
  };
}

import type BetterSqlite3 from "better-sqlite3";
import type { CompiledQuery } from "kysely";
import { type GuardedWrite, GuardFailed, type LockedWrite } from "../guarded-write.ts";
import { retryWhileBusy } from "./sqlite-busy.ts";
import { forgetSearchSamples } from "./sqlite-search.ts";

/** The connection's prepared statement for an SQL text (the adapter's cache: preparing costs more than most runs). */
export type PrepareStatement = (sql: string) => BetterSqlite3.Statement;

/**
 * SQLite: one `BEGIN IMMEDIATE` transaction run synchronously from begin to commit, like an append, so
 * no other statement of this process can slip into it (a kysely transaction would hold the connection's
 * transaction open across awaits, and an append in between would become part of it). While another
 * process holds the write lock, the transaction is tried again on a timer, up to `busyTimeoutMs`.
 */
export function sqliteGuardedWrite(
  database: BetterSqlite3.Database,
  prepare: PrepareStatement,
  busyTimeoutMs: number,
): GuardedWrite {
  const run = database.transaction((guard: CompiledQuery, statements: readonly CompiledQuery[]) => {
    if (prepare(guard.sql).run(guard.parameters).changes === 0) throw new GuardFailed();
    for (const s of statements) prepare(s.sql).run(s.parameters);
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
export function sqliteLockedWrite(
  database: BetterSqlite3.Database,
  prepare: PrepareStatement,
  busyTimeoutMs: number,
  afterWrites: () => void = () => {},
): LockedWrite {
  return (reads, plan) => {
    const run = database.transaction(() => {
      const rows = reads.map((q) => prepare(q.sql).all(q.parameters) as Record<string, unknown>[]);
      const planned = plan(rows);
      if (planned.guard === undefined) return planned.result;
      if (prepare(planned.guard.sql).run(planned.guard.parameters).changes === 0) throw new GuardFailed();
      for (const s of planned.statements) prepare(s.sql).run(s.parameters);
      afterWrites();
      return planned.result;
    });
    return retryWhileBusy(database, busyTimeoutMs, "writeLocked", () => run.immediate());
  };
}

/**
 * SQLite, for an erasure: the locked write with `secure_delete` on (the space the old texts leave is
 * overwritten with zeros, not left in free pages) and, in its transaction, ANALYZE's samples of the search
 * index's keys dropped (forgetSearchSamples); then a checkpoint that truncates the WAL, whose frames
 * still hold the pages as they were. The checkpoint is best effort: a reader of an older page keeps those
 * frames until it ends, and the next checkpoint (SQLite's automatic one included) overwrites them.
 */
export function sqliteErasureWrite(
  database: BetterSqlite3.Database,
  prepare: PrepareStatement,
  busyTimeoutMs: number,
): LockedWrite {
  const write = sqliteLockedWrite(database, prepare, busyTimeoutMs, () => forgetSearchSamples(database));
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

import type pg from "pg";
import { type GuardedWrite, GuardFailed, type LockedWrite, type ReadRows } from "../guarded-write.ts";

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

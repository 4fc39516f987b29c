/**
 * Runs a test's step while another connection holds a write lock on the database: on SQLite the file's
 * writer lock (`BEGIN IMMEDIATE`), on PostgreSQL `table` locked in EXCLUSIVE mode; released after.
 */
import pg from "pg";
import { Database } from "./sqlite-driver.ts";

/** Runs `step` while another connection to `url` (of `engine`) holds the lock; returns what it returns. */
export async function whileLocked<T>(engine: string, url: string, table: string, step: () => Promise<T>): Promise<T> {
  if (engine === "sqlite") {
    const other = new Database(url);
    other.exec("BEGIN IMMEDIATE");
    try {
      return await step();
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
  }
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    await other.query("BEGIN");
    await other.query(`LOCK TABLE ${table} IN EXCLUSIVE MODE`);
    return await step();
  } finally {
    await other.end();
  }
}

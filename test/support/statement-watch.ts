/**
 * What SQL a test's code sends, seen by wrapping the real drivers (better-sqlite3's statements, pg's
 * `Client.query`); the spies are vitest's, restored with vi.restoreAllMocks.
 */
import pg from "pg";
import { vi } from "vitest";
import { Database } from "./sqlite-driver.ts";

/** The SQL and method of each statement better-sqlite3 runs from now on (restored after each test). */
export function watchSqliteStatements(): { sql: string; method: string }[] {
  const seen: { sql: string; method: string }[] = [];
  const probe = new Database(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("SELECT 1"));
  probe.close();
  for (const method of ["run", "all", "get"] as const) {
    const original = statement[method];
    vi.spyOn(statement, method).mockImplementation(function (this: { source: string }, ...args: unknown[]) {
      seen.push({ sql: this.source.trim(), method });
      return original.apply(this, args);
    });
  }
  return seen;
}

/** The SQL of each statement pg's clients send from now on (restored after each test). */
export function watchPgStatements(before?: (sql: string) => Promise<void>): string[] {
  const seen: string[] = [];
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const [config] = args;
    const sql = String(typeof config === "string" ? config : (config as { text?: unknown }).text).trim();
    seen.push(sql);
    const hold = before?.(sql);
    if (hold === undefined) return query.apply(this, args) as never;
    return hold.then(() => query.apply(this, args)) as never;
  });
  return seen;
}

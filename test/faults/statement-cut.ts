/**
 * Stops a worker process dead at one SQL statement, on either engine, so that its parent can SIGKILL it
 * exactly there: `armCut` wraps the drivers' statement calls (better-sqlite3's Statement `run`, `all` and
 * `get`, which its transactions' COMMIT goes through too; pg's `Client.query`), and the first statement
 * matching the cut point, before it runs, writes CUT_REACHED on stderr (synchronously: the event loop
 * never turns again, so nothing else of the process runs) and blocks the thread for good.
 */
import { writeSync } from "node:fs";
import pg from "pg";
import { Database } from "../support/sqlite-driver.ts";

/** What the worker writes on stderr when it stops at the cut point. */
export const CUT_REACHED = "CUT-POINT-REACHED";

/**
 * Where to stop: the first statement whose SQL matches `sql` and, if given, one of whose text parameters
 * matches `parameter` (both case-insensitive regular expressions).
 */
export interface CutPoint {
  sql: string;
  parameter?: string;
}

/** Arms the cut: from now on, the first matching statement stops the process for good. */
export function armCut(point: CutPoint): void {
  const pattern = new RegExp(point.sql, "i");
  const parameter = point.parameter === undefined ? undefined : new RegExp(point.parameter, "i");
  const matches = (sql: unknown, parameters: unknown): boolean =>
    typeof sql === "string" &&
    pattern.test(sql.trim()) &&
    (parameter === undefined ||
      (Array.isArray(parameters) && parameters.some((p) => typeof p === "string" && parameter.test(p))));
  const stop = (sql: string): never => {
    writeSync(2, `${CUT_REACHED} before: ${sql.slice(0, 120)}\n`);
    // Blocks the only thread: no statement, timer or callback of this process runs again.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  };

  const probe = new Database(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, unknown>;
  probe.close();
  for (const method of ["run", "all", "get"]) {
    const original = statement[method] as (...args: unknown[]) => unknown;
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      const parameters = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
      if (matches(this.source, parameters)) stop(this.source);
      return original.apply(this, args);
    };
  }

  const client = pg.Client.prototype as unknown as Record<string, unknown>;
  const query = client.query as (...args: unknown[]) => unknown;
  client.query = function (this: unknown, ...args: unknown[]) {
    const [config, values] = args;
    const sql = typeof config === "string" ? config : (config as { text?: unknown } | undefined)?.text;
    const parameters = Array.isArray(values) ? values : (config as { values?: unknown } | undefined)?.values;
    if (matches(sql, parameters)) stop(String(sql));
    return query.apply(this, args);
  };
}

import type BetterSqlite3 from "better-sqlite3";
import type { ChangeSource } from "../change-notifier.ts";
import { isSqliteBusy } from "./sqlite-busy.ts";

/**
 * Cross-process change notification on SQLite, which has no notifications of its own: while the store has
 * listeners, a timer reads `PRAGMA data_version` (a counter in shared memory that moves only when another
 * connection commits) every `intervalMs`; when it moved, the sessions written since the last check
 * (`events` of the store's `tenant` past the largest position seen) are delivered. Like PostgreSQL's LISTEN connection, the timer
 * keeps the process alive while someone listens. A check that finds the file busy (another process
 * switching its journal, say) is simply made again at the next tick. An in-memory database has no other
 * connections and is never polled.
 */
export function sqliteChangeSource(database: BetterSqlite3.Database, intervalMs: number, tenant: string): ChangeSource {
  if (database.memory) {
    return (_deliver, live) => {
      live();
      return async () => {};
    };
  }
  return (deliver, live) => {
    const dataVersion = database.prepare("PRAGMA data_version").pluck();
    const maxPosition = database.prepare("SELECT COALESCE(MAX(position), 0) FROM events").pluck();
    const written = database.prepare(
      "SELECT session_id, MAX(seq) AS version, MAX(position) AS position FROM events " +
        "WHERE tenant_id = ? AND position > ? GROUP BY session_id",
    );
    let seenVersion = dataVersion.get();
    let seenPosition = maxPosition.get() as number;
    let reported = false;
    const check = () => {
      try {
        const version = dataVersion.get();
        if (version === seenVersion) return;
        seenVersion = version;
        const rows = written.all(tenant, seenPosition) as { session_id: string; version: number; position: number }[];
        for (const row of rows) seenPosition = Math.max(seenPosition, row.position);
        for (const row of rows) deliver({ sessionId: row.session_id, version: row.version });
      } catch (error) {
        if (isSqliteBusy(error)) return;
        if (!reported) console.error("palimpsest: could not check the SQLite file for other commits", error);
        reported = true;
      }
    };
    const timer = setInterval(check, intervalMs);
    live(); // every commit past seenPosition, read just now, is delivered by a later check
    return async () => clearInterval(timer);
  };
}

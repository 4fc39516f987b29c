import type { ChangeFeed, EventStore, StoredEvent } from "@palimpsest/core";
import { concatMap, type Observable } from "rxjs";
import type { WatchTarget } from "./log-cursor.ts";
import { type WatchOptions, watchLog } from "./watch-log.ts";

/**
 * The events of one session (from `fromSeq`) or of the whole log (after a checkpoint) as an Observable:
 * catches up, then goes live, emitting each event once and in order, across processes (PostgreSQL
 * LISTEN/NOTIFY, or SQLite's poll, wake it; the log is always re-read). Reads are serialized and paged,
 * so a slow subscriber never has two reads in flight. Never completes; unsubscribe to stop.
 */
export function watchEvents(
  store: EventStore & ChangeFeed,
  target: WatchTarget,
  options: WatchOptions = {},
): Observable<StoredEvent> {
  return watchLog(store, target, options).pipe(concatMap((page) => page.events));
}

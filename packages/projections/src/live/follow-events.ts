import type { ChangeFeed, EventStore, StoredEvent } from "@palimpsest/core";
import { defer, map, type Observable } from "rxjs";
import type { LogPosition, WatchTarget } from "./log-cursor.ts";
import { type WatchOptions, watchLog } from "./watch-log.ts";

/** How far a follower got: events handled so far, whether it has caught up, and where to resume from. */
export interface FollowProgress {
  /** Events handled since subscribing. */
  handled: number;
  /** False while catching up; true once the follower has reached the end of the log. */
  caughtUp: boolean;
  /** Give this back as `after` (global) or `fromSeq − 1` (session) to resume after a restart. */
  position: LogPosition;
}

/**
 * Follows the log of `target` with backpressure: `handle` gets each page of events (at most `pageSize`,
 * in order, each event once) and the next page is read only after it settles, so a slow consumer holds
 * one page, never a backlog. Emits progress after every handled page (save `position` to resume). If
 * `handle` throws, the Observable errors and the page counts as not handled: resume from the last position.
 */
export function followEvents(
  store: EventStore & ChangeFeed,
  target: WatchTarget,
  handle: (events: readonly StoredEvent[]) => Promise<void> | void,
  options: WatchOptions = {},
): Observable<FollowProgress> {
  return defer(() => {
    let handled = 0;
    let caughtUp = false;
    return watchLog(store, target, options, (page) => handle(page.events)).pipe(
      map(({ events, position }) => {
        handled += events.length;
        if (events.length === 0) caughtUp = true;
        return { handled, caughtUp, position };
      }),
    );
  });
}

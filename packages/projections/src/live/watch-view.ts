import { type ChangeFeed, type EventStore, foldEvents, initialState, type SessionState } from "@palimpsest/core";
import { concatMap, defer, type Observable } from "rxjs";
import { type ActiveView, activeView } from "../view/active-view.ts";
import { type WatchOptions, watchLog } from "./watch-log.ts";

/**
 * The active view of one session as an Observable: emits the current view once caught up, then a new one
 * after every read of new events (one per commit, or per page of a large one), across processes. It folds
 * the events read from the log after the last one seen, so a burst of commits never skips or repeats one.
 * `from` (a state already loaded, e.g. a session's) is copied, never changed.
 */
export function watchView(
  store: EventStore & ChangeFeed,
  sessionId: string,
  from: SessionState = initialState(sessionId),
  options: WatchOptions = {},
): Observable<ActiveView> {
  return defer(() => {
    const state = structuredClone(from);
    let live = false;
    return watchLog(store, { sessionId, fromSeq: state.lastSeq + 1 }, options).pipe(
      concatMap(({ events }) => {
        foldEvents(state, events);
        if (events.length === 0) live = true;
        return live ? [activeView(state)] : [];
      }),
    );
  });
}

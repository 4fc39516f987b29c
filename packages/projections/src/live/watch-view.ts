import { type ChangeFeed, type EventStore, foldEvents, initialState, type SessionState } from "@palimpsest/core";
import { concatMap, filter, fromEventPattern, map, Observable, startWith } from "rxjs";
import { type ActiveView, activeView } from "../view/active-view.ts";

/**
 * The active view of one session as an Observable: emits the current view, then a new one after
 * every commit to that session. Changes are only wake-ups; each emission folds the events read from
 * the log after the last one seen, in order, so a burst of commits never skips or repeats an event.
 * `from` (a state already loaded, e.g. a session's) is copied, never changed.
 */
export function watchView(
  store: EventStore & ChangeFeed,
  sessionId: string,
  from: SessionState = initialState(sessionId),
): Observable<ActiveView> {
  return new Observable<ActiveView>((subscriber) => {
    const state = structuredClone(from);
    const changes = fromEventPattern<{ sessionId: string }>(
      (handler) => store.subscribe(handler),
      (_handler, unsubscribe: () => void) => unsubscribe(),
    );
    return changes
      .pipe(
        filter((change) => change.sessionId === sessionId),
        startWith(undefined),
        concatMap(() => store.readStream(sessionId, { fromSeq: state.lastSeq + 1 })),
        filter((events, index) => index === 0 || events.length > 0),
        map((events) => activeView(foldEvents(state, events))),
      )
      .subscribe(subscriber);
  });
}

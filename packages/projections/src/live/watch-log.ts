import { type ChangeFeed, type EventStore, isPalimpsestError, type StoredEvent } from "@palimpsest/core";
import { Observable } from "rxjs";
import { AwaitedChanges } from "./awaited-changes.ts";
import { type LogPosition, logCursor, type WatchTarget } from "./log-cursor.ts";

/** How a watcher reads the log. */
export interface WatchOptions {
  /** Events per read: the most a watcher reads and holds at once; default 500. */
  pageSize?: number;
}

const DEFAULT_PAGE_SIZE = 500;

/** A page of the log as a watcher read it, and where the watcher stands after it. */
export interface LogPage {
  events: StoredEvent[];
  position: LogPosition;
}

/** Work done on each page before the next read (backpressure): the watcher reads on only once it settles. */
export type PageHandler = (page: LogPage) => Promise<void> | void;

/** Re-reads of a global watcher waiting for a commit hidden behind the visibility barrier: first and longest wait. */
const FIRST_RETRY_MS = 10;
const MAX_RETRY_MS = 1_000;

/** True for a read that may succeed if made again (a dropped connection, a restarting server, a busy file). */
function retryable(error: unknown): boolean {
  return isPalimpsestError(error) && error.retryable;
}

/**
 * The log of `target` read page by page: catches up, emits one empty page to say it has, then reads again
 * on every relevant wake-up from `store`. One read is in flight at most; wake-ups heard while reading
 * collapse into one more round; each round reads from the last event emitted, never from a payload.
 * The feed is subscribed before the first read, and read again once it hears other processes
 * (`listening`), so no commit falls between catching up and going live.
 * With `handle`, each page is handled (awaited) before the next read, so a slow consumer holds one page.
 * A read that fails with a retryable error (`retryable`: in practice a transient STORAGE failure) is made
 * again from the same place, backing off, for as long as the watcher is subscribed; any other error ends
 * the Observable with it.
 */
export function watchLog(
  store: EventStore & ChangeFeed,
  target: WatchTarget,
  options: WatchOptions = {},
  handle?: PageHandler,
): Observable<LogPage> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  return new Observable<LogPage>((subscriber) => {
    const cursor = logCursor(store, target);
    const awaited = "all" in target ? new AwaitedChanges() : undefined;
    let reading = false;
    let again = false;
    let caughtUp = false;
    let retry: NodeJS.Timeout | undefined;
    let retryDelay = FIRST_RETRY_MS;

    /** The next page, retrying retryable failures; undefined once unsubscribed. */
    const read = async (): Promise<StoredEvent[] | undefined> => {
      for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
        try {
          return await cursor.read(pageSize);
        } catch (error) {
          if (!retryable(error) || subscriber.closed) throw error;
          await new Promise((resolve) => {
            retry = setTimeout(resolve, delay);
            retry.unref();
          });
          if (subscriber.closed) return undefined;
        }
      }
    };
    const drain = async () => {
      try {
        do {
          again = false;
          let page: StoredEvent[] | undefined;
          do {
            page = await read();
            if (page === undefined || subscriber.closed) return;
            if (page.length > 0) {
              awaited?.read(page);
              const read = { events: page, position: cursor.position() };
              await handle?.(read);
              if (subscriber.closed) return;
              subscriber.next(read);
            }
          } while (page.length === pageSize && !subscriber.closed);
          if (!caughtUp && !subscriber.closed) {
            caughtUp = true;
            subscriber.next({ events: [], position: cursor.position() });
          }
        } while (again && !subscriber.closed);
        if (!subscriber.closed) scheduleRetry();
      } catch (error) {
        subscriber.error(error);
      } finally {
        reading = false;
      }
    };
    const wake = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      void drain();
    };
    const scheduleRetry = () => {
      clearTimeout(retry);
      retry = undefined;
      if (awaited === undefined || !awaited.waiting()) {
        retryDelay = FIRST_RETRY_MS;
        return;
      }
      retry = setTimeout(wake, retryDelay);
      retry.unref();
      retryDelay = Math.min(retryDelay * 2, MAX_RETRY_MS);
    };

    const unsubscribe = store.subscribe((change) => {
      if ("sessionId" in target && change.sessionId !== target.sessionId) return;
      awaited?.heard(change);
      wake();
    });
    wake();
    // Subscribed before the feed hears other processes: read once more when it does, for what fell between.
    void store.listening()?.then(() => {
      if (!subscriber.closed) wake();
    });
    return () => {
      unsubscribe();
      clearTimeout(retry);
    };
  });
}

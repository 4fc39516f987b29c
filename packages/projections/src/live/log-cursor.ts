import type { EventStore, GlobalCheckpoint, StoredEvent } from "@palimpsest/core";

/** Where a watcher of the log starts: one session from a seq (default 1), or the global log after a checkpoint. */
export type WatchTarget = { sessionId: string; fromSeq?: number } | { all: true; after?: GlobalCheckpoint };

/** Where a watcher stands after a page: the global checkpoint, or the session's last seq read. */
export type LogPosition = { checkpoint: GlobalCheckpoint } | { lastSeq: number };

/** A reader's place in the log: each read returns the next events (at most `limit`) and moves past them. */
export interface LogCursor {
  read(limit: number): Promise<StoredEvent[]>;
  /** Where the next read starts from: save it to resume a watcher after a restart. */
  position(): LogPosition;
}

/** The cursor of `target` over `store`: seq slices of one stream, or checkpointed pages of the global log. */
export function logCursor(store: EventStore, target: WatchTarget): LogCursor {
  if ("all" in target) {
    let checkpoint = target.after ?? "";
    return {
      async read(limit) {
        const page = await store.readAll({ after: checkpoint, limit });
        checkpoint = page.checkpoint;
        return page.events;
      },
      position: () => ({ checkpoint }),
    };
  }
  const { sessionId } = target;
  let next = target.fromSeq ?? 1;
  return {
    async read(limit) {
      const events = await store.readStream(sessionId, { fromSeq: next, toSeq: next + limit - 1 });
      next = (events.at(-1)?.seq ?? next - 1) + 1;
      return events;
    },
    position: () => ({ lastSeq: next - 1 }),
  };
}

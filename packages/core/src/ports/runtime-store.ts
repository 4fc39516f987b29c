import type { CandidateStore } from "./candidate-store.ts";
import type { ChangeFeed } from "./change-feed.ts";
import type { EventStore } from "./event-store.ts";
import type { HandoffQueuePort } from "./handoff-queue.ts";
import type { MessageSearch } from "./message-search.ts";
import type { SnapshotStore } from "./snapshot-store.ts";

/**
 * The store a runtime needs: the event log, its snapshots, wake-ups after commits, pre-compaction
 * candidates, the search of messages, the hand-off queue, and the lookup of sessions by name. The store's OpenedEventStore (SQLite,
 * PostgreSQL) and its in-memory store implement it.
 */
export type RuntimeStore = EventStore &
  SnapshotStore &
  ChangeFeed &
  CandidateStore &
  MessageSearch & {
    readonly handoffQueue: HandoffQueuePort;
    /** The ids of the sessions named `name` (their source's external id); ValidationError for a non-id. */
    sessionsNamed(name: string): Promise<string[]>;
  };

import type { StoredEvent } from "../events/parse-event.ts";

/** A search of sessions' messages (MessageSearch.searchMessages). */
export interface MessageSearchQuery {
  /** The sessions searched: a session and its lineage. A session of another tenant is never searched. */
  readonly sessionIds: readonly string[];
  /** The query's terms (searchTerms of its text): a message matches when it holds any of them. */
  readonly terms: readonly string[];
  /** Most hits returned. */
  readonly limit: number;
  /** Hits skipped first (a later page); default 0. */
  readonly offset?: number;
}

/** A message a search found: its `message.appended` event as stored, and how well it matched (higher is better). */
export interface MessageSearchHit {
  /** The message's event, read as readStream reads it. */
  readonly event: StoredEvent;
  /** The engine's score: comparable within one search only. */
  readonly rank: number;
}

/**
 * Full-text search over every message a session's log holds, superseded ones included: an index kept in
 * the append's transaction (SQLite FTS5, PostgreSQL tsvector with a GIN index) over the terms of each
 * message (core's indexedTerms), emptied of a session in its erasure's transaction. An encrypting store
 * keeps no index (the terms would be content in the clear): it opens the sessions' messages and scans
 * them, ranking by how many of the terms each holds.
 */
export interface MessageSearch {
  /**
   * The messages of `query.sessionIds` holding any of its terms, best first as the engine ranks them
   * (BM25 on SQLite, which weighs rare terms more; ts_rank on PostgreSQL; the memory store counts the
   * terms held), then newest first.
   */
  searchMessages(query: MessageSearchQuery): Promise<MessageSearchHit[]>;
  /** The compactions (`messages.superseded` events) of `sessionIds`, oldest first: what superseded which message. */
  compactionsOf(sessionIds: readonly string[]): Promise<StoredEvent[]>;
}

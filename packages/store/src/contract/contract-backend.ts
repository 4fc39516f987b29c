import type { ChangeFeed, EventStore, MessageSearch, SnapshotStore } from "@palimpsest/core";
import type { SessionPage, SessionPageOptions } from "../engine/session-page.ts";

/**
 * A store the contract suite checks: the event log, its snapshots, its wake-ups after commits and the
 * search of its messages, and, when it has them, the session catalogue's pages (the suite's page tests
 * skip, saying so, without them).
 */
export type ContractStore = EventStore &
  SnapshotStore &
  ChangeFeed &
  MessageSearch & {
    listSessionPage?(options?: SessionPageOptions): Promise<SessionPage>;
  };

/** An append a backend started and left uncommitted (see ContractBackend.holdOpenAppend). */
export interface HeldAppend {
  /** Commits the held append. */
  commit(): Promise<void>;
}

/**
 * One database the contract suite runs on, isolated from every other test: `open` gives a store on it,
 * and the optional capabilities let the tests that need an engine's own hooks run (without one, they skip
 * and say why).
 */
export interface ContractBackend<S extends ContractStore = ContractStore> {
  /**
   * Opens a store on this backend's data, with its own connections (the suite opens several to race
   * writers on separate connections, and closes one to see a failure), of `options.tenant` (default: the
   * store's default tenant); `dispose` closes them all.
   */
  open(options?: { tenant?: string }): Promise<S>;
  /** Closes every store `open` gave and deletes the data. */
  dispose(): Promise<void>;
  /**
   * Starts a new session's first append (one event at seq 1) in a transaction of its own and leaves it
   * uncommitted: for engines whose commit order is not position order (PostgreSQL), so the suite can check
   * that global readers see nothing committed after it until it commits. Absent where one writer at a time
   * makes commit order position order (SQLite, the memory store).
   */
  holdOpenAppend?(sessionId: string): Promise<HeldAppend>;
}

/** What every part of the contract suite gets: the backend and the store the suite opened on it first. */
export interface ContractContext {
  store(): ContractStore;
  backend(): ContractBackend;
}

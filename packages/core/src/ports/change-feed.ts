/** What changed: a session's stream reached `version`. A wake-up; read the log for the events. */
export interface StoreChange {
  sessionId: string;
  version: number;
}

/**
 * Called after an append commits. A wake-up may come more than once for one commit (PostgreSQL's feed
 * catches up on what it may have missed when its connection starts or returns): read from where you are.
 */
export type ChangeListener = (change: StoreChange) => void;

/** A store that can wake readers after commits: its own at once, other processes' as the engine hears them. */
export interface ChangeFeed {
  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void;
  /**
   * While the feed a subscriber started does not hear other processes' commits yet: a promise that resolves
   * once it does (PostgreSQL's LISTEN connection is up and has caught up). Otherwise undefined. A reader
   * that subscribed before then reads again when it resolves: a commit made elsewhere in between may have
   * gone unheard.
   */
  listening(): Promise<void> | undefined;
}

/** What changed: a session's stream reached `version`. A wake-up; read the log for the events. */
export interface StoreChange {
  sessionId: string;
  version: number;
}

/** Called after an append commits. */
export type ChangeListener = (change: StoreChange) => void;

/** A store that can wake readers after commits: its own at once, other processes' as the engine hears them. */
export interface ChangeFeed {
  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void;
}

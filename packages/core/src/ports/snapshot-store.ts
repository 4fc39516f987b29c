/** A cached fold of a session up to `seq`. A cache, never the truth: readers verify and may ignore it. */
export interface Snapshot {
  sessionId: string;
  seq: number;
  /** The state-format version; a snapshot of another format is ignored. */
  format: number;
  /** The serialized state (JSON text) and its checksum, so corruption is detected, not trusted. */
  state: string;
  checksum: string;
  /**
   * Set by a store that authenticated the state as it read it (an encrypted store: AES-GCM's tag covers
   * the state and its checksum), so readers need not hash it again; absent otherwise.
   */
  authenticated?: boolean;
}

/** Where view snapshots are kept. Losing every snapshot loses nothing but time. */
export interface SnapshotStore {
  /**
   * Stores or replaces the session's snapshot, never over one of a later seq (another process may have
   * written it meanwhile); stores nothing for a session the store does not hold or has erased (an erasure
   * in progress is waited for, so what it deleted is never stored again).
   */
  saveSnapshot(snapshot: Snapshot): Promise<void>;
  /** The session's latest snapshot, if any. */
  loadSnapshot(sessionId: string): Promise<Snapshot | undefined>;
  /** Drops the session's snapshot (tests and repair use it). */
  deleteSnapshot(sessionId: string): Promise<void>;
}

import type { DroppedKey, MirrorEntryRow, MirrorKey, MirrorKeyRow } from "../mirror/mirror-key.ts";

/**
 * The verbatim log of mirrored transcripts as the runtime's fold and erasure use it (the store's MirrorLog
 * implements it, and documents each step's rules): a key's state and entries, the sessions folded from
 * it, and dropping a key in one transaction.
 */
export interface MirrorLogPort {
  /** The key's state, or undefined for a key never written. */
  key(key: MirrorKey): Promise<MirrorKeyRow | undefined>;
  /** The key's entries in `generation` in stored order, those after `afterSeq` only when it is given. */
  entryRows(key: MirrorKey, generation: number, afterSeq?: number): Promise<MirrorEntryRow[]>;
  /** Records that the key's entries up to `seq` of `generation` are folded (never moves back). */
  markFolded(key: MirrorKey, generation: number, seq: number): Promise<void>;
  /** Records that `sessionId` holds a fold of the key's `generation`; false when the key has moved past it. */
  registerSession(key: MirrorKey, generation: number, sessionId: string): Promise<boolean>;
  /** Drops a key (a main key with its subpaths) in one transaction: next generation begun, entries deleted. */
  drop(key: MirrorKey): Promise<DroppedKey[]>;
  /** Deletes what drops a crash cut short left of generations their keys have left; how many keys it finished. */
  finishDrops(): Promise<number>;
  /** The key whose current generation `sessionId` was folded from, if any. */
  keyOfSession(sessionId: string): Promise<MirrorKey | undefined>;
  /** The sessions folds of the key's generations before `beforeGeneration` were written to. */
  sessionsOf(key: MirrorKey, beforeGeneration: number): Promise<string[]>;
  /** Sessions folded from generations their key has left that still hold content (a delete cut short). */
  unerasedSessions(): Promise<string[]>;
}

/**
 * One mirrored transcript (migration 0012): an external agent's session or one of its subagent files,
 * named as the agent names it. `generation` counts erasures: entries and sessions of an erased
 * generation are gone, and a key written again after one starts the next generation.
 */
export interface MirrorKeysTable {
  project_key: string;
  session_key: string;
  /** '' for the main transcript; `subagents/agent-<id>` and the like for the files beside it. */
  subpath: string;
  generation: number;
  /** Entries stored in this generation (the next entry's seq). */
  next_seq: number;
  /** Entries of this generation folded into Palimpsest sessions (at most next_seq). */
  folded_seq: number;
  /** When the key was last written, epoch milliseconds, strictly increasing per key. */
  mtime_ms: number;
  /** The caller's opaque summary of the key (JSON text), replaced on every append that stores entries. */
  summary: string | null;
  /**
   * Unused: SHA-256 of the last batch stored, by which older versions took a uuid-less batch equal to it
   * for a retry and stored nothing. Entries without a uuid are now stored as they come (mirror-dedup.ts).
   */
  last_batch: string | null;
}

/** One entry of a mirrored transcript, kept verbatim as the JSON text it arrived as. */
export interface MirrorEntriesTable {
  project_key: string;
  session_key: string;
  subpath: string;
  generation: number;
  seq: number;
  /** The entry's `uuid`, its idempotency key; null for entries without one. */
  uuid: string | null;
  entry: string;
}

/** A Palimpsest session a key's entries were folded into, recorded before the fold first writes to it. */
export interface MirrorSessionsTable {
  project_key: string;
  session_key: string;
  subpath: string;
  generation: number;
  session_id: string;
}

/** The mirror tables, merged into the store's kysely database type. */
export type MirrorTables = {
  mirror_keys: MirrorKeysTable;
  mirror_entries: MirrorEntriesTable;
  mirror_sessions: MirrorSessionsTable;
};

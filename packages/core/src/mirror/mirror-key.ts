/** A mirrored transcript: an external agent's session (`subpath` absent) or a file beside it. */
export interface MirrorKey {
  project: string;
  session: string;
  /** Absent for the main transcript; `subagents/agent-<id>` and the like otherwise. */
  subpath?: string;
}

/** A key's state: its generation, entry counts, last write time and summary. */
export interface MirrorKeyRow {
  generation: number;
  nextSeq: number;
  foldedSeq: number;
  mtimeMs: number;
  summary: string | null;
}

/** A key a drop emptied: the key, and its state (the generation it left) as the drop found it. */
export type DroppedKey = MirrorKey & MirrorKeyRow;

/** One stored entry as the fold reads it: its seq in the key, its JSON text and its uuid's key (null without one). */
export interface MirrorEntryRow {
  seq: number;
  text: string;
  uuid: string | null;
}

import {
  IncrementalClaudeCode,
  isPalimpsestError,
  type MirrorKey,
  type MirrorLogPort,
  type ThreadItems,
} from "@palimpsest/core";
import type { ImportedLog } from "../import/import-sessions.ts";

/**
 * What one process keeps of a mirrored key between its folds, so that a fold reads and parses only the
 * entries stored since the last one, and plans each session's append on the state the last one left:
 * the key's generation, the entries read, the parser, and per thread what is in its session. A fold that
 * fails midway, or finds another generation, starts again from the key's first entry.
 */
export interface MirrorFoldMemory {
  current: KeptKey | undefined;
  /** A generation whose lines the parser refused: its folds read the whole key (they find and leave out the line). */
  refused: number | undefined;
}

/** The key as the last fold left it. */
interface KeptKey {
  generation: number;
  /** The seq of the last entry read. */
  seq: number;
  parser: IncrementalClaudeCode;
  threads: Map<string, KeptThread>;
}

/** What the fold knows of one thread's session. */
export interface KeptThread {
  /** How many of the thread's first items are in its session as they are final (none can change). */
  inLog: number;
  /** The session is recorded for this generation (MirrorLogPort.registerSession). */
  registered: boolean;
  /** Its state and log keys as the last import left them. */
  log: ImportedLog;
}

/** A thread to fold: its items from `start` on, and what is kept of it (nothing when the whole key was read). */
export interface FoldThread extends ThreadItems {
  kept: KeptThread | undefined;
}

/** A memory holding nothing yet. */
export function emptyFoldMemory(): MirrorFoldMemory {
  return { current: undefined, refused: undefined };
}

/**
 * The key's threads with their items from what their sessions hold on, after reading the entries stored
 * since the last fold (`skip` says which lines to leave out unread, and reports them). Undefined when the
 * parser refuses a line (the caller reads the whole key, which finds and leaves out that line), and for a
 * generation whose lines it refused before.
 */
export async function readSinceLastFold(
  log: MirrorLogPort,
  key: MirrorKey,
  generation: number,
  fileName: string,
  memory: MirrorFoldMemory,
  skip: (seq: number, row: { text: string; uuid: string | null }, value: unknown) => boolean,
): Promise<{ threads: FoldThread[]; seq: number } | undefined> {
  if (memory.refused === generation) return undefined;
  const kept =
    memory.current?.generation === generation
      ? memory.current
      : { generation, seq: 0, parser: new IncrementalClaudeCode(fileName), threads: new Map<string, KeptThread>() };
  memory.current = undefined; // until this read is whole: a failure leaves nothing half read behind
  try {
    for (const row of await log.entryRows(key, generation, kept.seq)) {
      const value: unknown = JSON.parse(row.text);
      kept.seq = row.seq;
      if (!skip(row.seq, row, value)) kept.parser.read(value, row.seq);
    }
    const items = kept.parser.items((externalId) => kept.threads.get(externalId)?.inLog ?? 0);
    memory.current = kept;
    return { threads: items.map((t) => ({ ...t, kept: keptThread(kept, t.session.externalId) })), seq: kept.seq };
  } catch (error) {
    if (!isPalimpsestError(error, "VALIDATION")) throw error;
    memory.refused = generation;
    return undefined;
  }
}

function keptThread(key: KeptKey, externalId: string): KeptThread {
  let thread = key.threads.get(externalId);
  if (thread === undefined) {
    thread = { inLog: 0, registered: false, log: { current: undefined } };
    key.threads.set(externalId, thread);
  }
  return thread;
}

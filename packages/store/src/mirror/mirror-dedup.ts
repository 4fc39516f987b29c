import { isDeepStrictEqual } from "node:util";
import type { MirrorEntryInput } from "./mirror-log.ts";

/** What of a batch is new to its key, and which of the entries passed over differ from the ones kept. */
export interface BatchDedup {
  /** The entries to store, in batch order. */
  fresh: MirrorEntryInput[];
  /**
   * Indexes (in the batch) of entries passed over for a uuid the key holds, or an earlier entry of the
   * batch has, with other content: the entry kept is the first one, and these must be reported.
   */
  mismatched: number[];
}

/**
 * The entries of a batch the key does not hold yet. The uuid is the idempotency key: an entry whose uuid
 * the key holds (`held`: uuid key → the stored text), or an earlier entry of the batch has, is passed
 * over, and reported as mismatched when its content differs (deep equality of the JSON: key order aside).
 * A batch whose uuid entries are all held is a retry or a replay (`importSessionToStore` again): nothing
 * of it is new, its uuid-less entries included. Otherwise entries without a uuid are new, every time they
 * come (the SDK's contract), a batch of them only included.
 */
export function dedupBatch(entries: readonly MirrorEntryInput[], held: ReadonlyMap<string, string>): BatchDedup {
  const first = new Map(held);
  const fresh: MirrorEntryInput[] = [];
  const mismatched: number[] = [];
  for (const [i, entry] of entries.entries()) {
    if (entry.uuid === undefined) {
      fresh.push(entry);
      continue;
    }
    const kept = first.get(entry.uuid);
    if (kept === undefined) {
      first.set(entry.uuid, entry.text);
      fresh.push(entry);
    } else if (!sameEntry(kept, entry.text)) mismatched.push(i);
  }
  const withUuid = entries.filter((e) => e.uuid !== undefined);
  const replay = withUuid.length > 0 && withUuid.every((e) => held.has(e.uuid as string));
  return { fresh: replay ? [] : fresh, mismatched };
}

/** Two entries' JSON texts hold the same entry: the same text, or deep-equal values (key order aside). */
function sameEntry(a: string, b: string): boolean {
  return a === b || isDeepStrictEqual(JSON.parse(a), JSON.parse(b));
}

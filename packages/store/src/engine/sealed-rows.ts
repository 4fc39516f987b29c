import { eventSkeleton, type PrecompactionCandidate, type StoredEvent } from "@palimpsest/core";
import { type ContentCipher, isSealedText, keyedHash, openText, sealText } from "../encryption/content-cipher.ts";
import type { PreparedBatch } from "./append-batch.ts";
import {
  type EventRow,
  parseRowData,
  SEALED_FIELD,
  sealedField,
  toSkeletonEvent,
  toStoredEvent,
} from "./row-mapping.ts";

/**
 * The batch as an encrypted store writes it: each event's data is its skeleton (core's eventSkeleton: what
 * an erasure keeps, readable without the key) with the whole data sealed beside it (SEALED_FIELD, bound to
 * the event's id), every content hash keyed by the session's hash key, and no terms for the search
 * index (they would be content in the clear).
 */
export async function sealBatch(cipher: ContentCipher, batch: PreparedBatch): Promise<PreparedBatch> {
  const keys = await cipher.keysToWrite(batch.sessionId);
  return {
    ...batch,
    contentHash: batch.contentHash === null ? null : keyedHash(keys, batch.contentHash),
    events: batch.events.map((prepared) => ({
      ...prepared,
      data: JSON.stringify({
        ...eventSkeleton(prepared.event).data,
        [SEALED_FIELD]: sealText(keys, prepared.data, `event ${prepared.eventId}`),
      }),
      contentHash: prepared.contentHash === null ? null : keyedHash(keys, prepared.contentHash),
      terms: null,
    })),
  };
}

/**
 * The stored events of `rows`, each encrypted one's data opened with its session's key. A session whose
 * key is gone (an erasure destroyed it and has not committed yet) is a StorageError, or with
 * `skeletonWithoutKey` its events' skeletons: what the erasure will leave (for readers of every session,
 * such as the audit's catch-up, which one unfinished erasure must not stop).
 */
export async function openEventRows(
  cipher: ContentCipher,
  rows: readonly EventRow[],
  skeletonWithoutKey = false,
): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for (const row of rows) {
    const data = parseRowData(row);
    const sealed = sealedField(data);
    if (sealed === undefined) {
      events.push(toStoredEvent(row, data));
      continue;
    }
    const keys = skeletonWithoutKey ? await cipher.keysIfKept(row.session_id) : await cipher.keysToRead(row.session_id);
    events.push(
      keys === undefined
        ? toSkeletonEvent(row)
        : toStoredEvent(row, JSON.parse(openText(keys, sealed, `event ${row.event_id}`))),
    );
  }
  return events;
}

/** A pre-compaction candidate as an encrypted store keeps it: its summary and the hashes of content in its key sealed. */
export async function sealCandidate(
  cipher: ContentCipher,
  candidate: PrecompactionCandidate,
): Promise<PrecompactionCandidate> {
  const keys = await cipher.keysToWrite(candidate.key.sessionId);
  return {
    ...candidate,
    key: {
      ...candidate.key,
      prefixHash: sealText(keys, candidate.key.prefixHash, "candidate prefix hash"),
      systemPromptHash: sealText(keys, candidate.key.systemPromptHash, "candidate system prompt hash"),
    },
    summary: sealText(keys, candidate.summary, "candidate summary"),
  };
}

/** A candidate sealCandidate sealed, opened (one kept before the store was encrypted is returned as it is). */
export async function openCandidate(
  cipher: ContentCipher,
  candidate: PrecompactionCandidate,
): Promise<PrecompactionCandidate> {
  if (!isSealedText(candidate.summary)) return candidate;
  const keys = await cipher.keysToRead(candidate.key.sessionId);
  return {
    ...candidate,
    key: {
      ...candidate.key,
      prefixHash: openText(keys, candidate.key.prefixHash, "candidate prefix hash"),
      systemPromptHash: openText(keys, candidate.key.systemPromptHash, "candidate system prompt hash"),
    },
    summary: openText(keys, candidate.summary, "candidate summary"),
  };
}

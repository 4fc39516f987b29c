import { deflateRawSync, inflateRawSync } from "node:zlib";
import { eventSkeleton, type PrecompactionCandidate, type Snapshot, type StoredEvent } from "@palimpsest/core";
import {
  type ContentCipher,
  isSealedText,
  keyedHash,
  openBytes,
  openText,
  sealBytes,
  sealText,
} from "../encryption/content-cipher.ts";
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
 * the event's id), and every content hash keyed by the session's hash key.
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

/** A snapshot as the snapshots table keeps it: with its state sealed as bytes (`state` then empty), or not. */
export interface StoredSnapshot extends Snapshot {
  readonly sealed: Uint8Array | null;
}

/** zlib's level for a sealed state: level 3 compresses JSON about as well as 6, at a third of the time. */
const DEFLATE_LEVEL = 3;

/** What a sealed state's bytes are bound to: its deflated UTF-8 (a state sealed as text is bound to "snapshot state"). */
const DEFLATED_STATE = "snapshot state, deflated";

/**
 * A snapshot as an encrypted store keeps it: its state deflated, then sealed as bytes (the resume's
 * largest read: ciphertext does not compress, so it is compressed first, as PostgreSQL compresses a plain
 * one; and no base64), and its checksum sealed as text (the checksum hashes the state).
 */
export async function sealSnapshot(cipher: ContentCipher, snapshot: Snapshot): Promise<StoredSnapshot> {
  const keys = await cipher.keysToWrite(snapshot.sessionId);
  const deflated = deflateRawSync(Buffer.from(snapshot.state, "utf8"), { level: DEFLATE_LEVEL });
  return {
    ...snapshot,
    state: "",
    checksum: sealText(keys, snapshot.checksum, "snapshot checksum"),
    sealed: sealBytes(keys, deflated, DEFLATED_STATE),
  };
}

/**
 * A snapshot sealSnapshot sealed, opened: its state from the bytes, or from the text for one sealed before
 * migration 0017; one kept before the store was encrypted is returned as it is.
 */
export async function openSnapshot(cipher: ContentCipher, stored: StoredSnapshot): Promise<Snapshot> {
  const { sealed, ...snapshot } = stored;
  if (!isSealedText(snapshot.checksum)) return snapshot;
  const keys = await cipher.keysToRead(snapshot.sessionId);
  return {
    ...snapshot,
    state:
      sealed === null
        ? openText(keys, snapshot.state, "snapshot state")
        : inflateRawSync(openBytes(keys, sealed, DEFLATED_STATE)).toString("utf8"),
    checksum: openText(keys, snapshot.checksum, "snapshot checksum"),
  };
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

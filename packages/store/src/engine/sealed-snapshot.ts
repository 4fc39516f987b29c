import { promisify } from "node:util";
import { deflateRaw, inflateRawSync } from "node:zlib";
import type { Snapshot } from "@palimpsest/core";
import { type ContentCipher, isSealedText, openBytes, sealBytes } from "../encryption/content-cipher.ts";

/** A snapshot as the snapshots table keeps it: with its state sealed as bytes (`state` then empty), or not. */
export interface StoredSnapshot extends Snapshot {
  readonly sealed: Uint8Array | null;
}

/** zlib's deflate on its thread pool: a large state is compressed off the event loop. */
const deflateInPool = promisify(deflateRaw);

/** zlib's level for a sealed state: level 3 compresses JSON about as well as 6, at a third of the time. */
const DEFLATE_LEVEL = 3;

/**
 * What a sealed snapshot's bytes are bound to. Earlier forms (the state sealed as text or alone, the
 * checksum sealed apart) are no longer opened: a snapshot is a cache, so one of them is a miss.
 */
const SEALED_SNAPSHOT = "snapshot checksum and state, deflated";

/**
 * A snapshot as an encrypted store keeps it: its checksum and state, deflated (ciphertext does not
 * compress, so it is compressed first, as PostgreSQL compresses a plain one), sealed as bytes in one piece;
 * the `state` and `checksum` columns are left empty. Bytes are `<checksum length>:<checksum><state>`.
 */
export async function sealSnapshot(cipher: ContentCipher, snapshot: Snapshot): Promise<StoredSnapshot> {
  const keys = await cipher.keysToWrite(snapshot.sessionId);
  const { sessionId, seq, format, checksum, state } = snapshot;
  const plain = await deflateInPool(Buffer.from(`${checksum.length}:${checksum}${state}`, "utf8"), {
    level: DEFLATE_LEVEL,
  });
  return { sessionId, seq, format, state: "", checksum: "", sealed: sealBytes(keys, plain, SEALED_SNAPSHOT) };
}

/**
 * A snapshot sealSnapshot sealed, opened and marked `authenticated` (AES-GCM checked it, so its checksum
 * need not be computed again); one kept before the store was encrypted, as it is; undefined (a cache miss:
 * the log is replayed) for one sealed in an earlier form or damaged. A StorageError when the session's
 * data key is gone, as for its events.
 */
export async function openSnapshot(cipher: ContentCipher, stored: StoredSnapshot): Promise<Snapshot | undefined> {
  const { sealed, ...snapshot } = stored;
  if (sealed === null || snapshot.checksum !== "") return isSealedText(snapshot.checksum) ? undefined : snapshot;
  const keys = await cipher.keysToRead(snapshot.sessionId);
  let deflated: Uint8Array;
  try {
    deflated = openBytes(keys, sealed, SEALED_SNAPSHOT);
  } catch {
    return undefined; // damaged (the tag does not match): what it held is replayed from the log
  }
  const text = inflateRawSync(deflated).toString("utf8"); // authenticated: what sealSnapshot deflated
  const colon = text.indexOf(":");
  const length = Number(text.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(length) || colon + 1 + length > text.length) return undefined;
  return {
    ...snapshot,
    checksum: text.slice(colon + 1, colon + 1 + length),
    state: text.slice(colon + 1 + length),
    authenticated: true,
  };
}

import { createHash } from "node:crypto";
import { type MirrorKey, StorageError } from "@palimpsest/core";
import {
  type ContentCipher,
  isSealedText,
  openText,
  type SessionKeys,
  sealText,
} from "../encryption/content-cipher.ts";

/** What a sealed text of the mirror is bound to (the AAD): an entry cannot be opened as a summary. */
const ENTRY = "mirror entry";
const SUMMARY = "mirror summary";

/**
 * The keyring's name for the data key of one generation of a mirrored key: a UUID derived from the key
 * and the generation, so each generation (an erasure begins the next) has a key of its own, and no
 * session id the runtime makes (UUIDv7, or a fold's mirrorSessionId) names the same key.
 */
export function mirrorKeyName(key: MirrorKey, generation: number): string {
  const name = JSON.stringify([key.project, key.session, key.subpath ?? "", generation]);
  const hex = createHash("sha256").update(`palimpsest-mirror-content:${name}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The mirror's content (each entry's text and a main key's summary) sealed under a data key per key and
 * generation, when the store was opened with a keyring: a drop destroys the generation's key, so what it
 * deleted is unreadable in every copy (the WAL, a replica, a backup taken before it). Ids, uuids, counts
 * and write times stay readable. Texts stored before the store was encrypted read as they are.
 */
export class MirrorSeal {
  readonly #cipher: ContentCipher;

  /** Seals and opens with `cipher`'s keyring. */
  constructor(cipher: ContentCipher) {
    this.#cipher = cipher;
  }

  /** The generation's keys, made when it has none: for an append. */
  keysToWrite(key: MirrorKey, generation: number): Promise<SessionKeys> {
    return this.#cipher.keysToWrite(mirrorKeyName(key, generation));
  }

  /** The generation's keys when `texts` holds a sealed text, or undefined when none is sealed. */
  async keysToOpen(
    key: MirrorKey,
    generation: number,
    texts: readonly (string | null)[],
  ): Promise<SessionKeys | undefined> {
    if (!texts.some((text) => text !== null && isSealedText(text))) return undefined;
    const keys = await this.#cipher.keysIfKept(mirrorKeyName(key, generation));
    if (keys !== undefined) return keys;
    throw new StorageError(
      "decrypt",
      `the mirrored key ${describe(key)} is encrypted under a data key its keyring does not hold: a delete ` +
        "destroyed it and did not finish (delete the key again), or this is not the keyring it was written with",
    );
  }

  /**
   * A key row's summary as the caller folded it; null when it is sealed under a key the keyring no longer
   * holds (a delete destroyed it and did not finish: the row is on its way out).
   */
  async openRowSummary(key: MirrorKey, generation: number, stored: string | null): Promise<string | null> {
    if (stored === null || !isSealedText(stored)) return stored;
    const keys = await this.#cipher.keysIfKept(mirrorKeyName(key, generation));
    return keys === undefined ? null : openText(keys, stored, SUMMARY);
  }

  /** Destroys the generation's key (nothing when it has none): what a drop leaves of it is unreadable. */
  destroy(key: MirrorKey, generation: number): Promise<void> {
    return this.#cipher.destroy(mirrorKeyName(key, generation));
  }

  /** An entry's text as stored. */
  sealEntry(keys: SessionKeys, text: string): string {
    return sealText(keys, text, ENTRY);
  }

  /** An entry's text as appended (a text stored before encryption as it is). */
  openEntry(keys: SessionKeys | undefined, stored: string): string {
    return keys === undefined || !isSealedText(stored) ? stored : openText(keys, stored, ENTRY);
  }

  /** A summary as stored. */
  sealSummary(keys: SessionKeys, summary: string): string {
    return sealText(keys, summary, SUMMARY);
  }

  /** A summary as the caller folded it (one stored before encryption as it is). */
  openSummary(keys: SessionKeys, stored: string | null): string | null {
    return stored === null || !isSealedText(stored) ? stored : openText(keys, stored, SUMMARY);
  }
}

/** `project/session[/subpath]`, for messages. */
function describe(key: MirrorKey): string {
  return [key.project, key.session, ...(key.subpath === undefined ? [] : [key.subpath])].join("/");
}

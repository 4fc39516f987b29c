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

  /** What an append for the generation opens and seals with, under its keys (made when it has none). */
  async forAppend(key: MirrorKey, generation: number): Promise<GenerationSeal> {
    const keys = await this.#cipher.keysToWrite(mirrorKeyName(key, generation));
    return {
      generation,
      openEntry: (stored) => this.openEntry(keys, stored),
      sealEntry: (text) => sealText(keys, text, ENTRY),
      openSummary: (stored) => (stored === null || !isSealedText(stored) ? stored : openText(keys, stored, SUMMARY)),
      sealSummary: (summary) => sealText(keys, summary, SUMMARY),
    };
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
      `the mirrored key ${describe(key)} is encrypted under a data key its keyring does not hold: this is ` +
        "not the keyring it was written with, or a copy of the database from before a delete that destroyed it",
    );
  }

  /**
   * A key row's summary as the caller folded it; null when it is sealed under a key the keyring does not
   * hold (a copy of the database from before a delete, or another keyring).
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

  /** An entry's text as appended (a text stored before encryption as it is). */
  openEntry(keys: SessionKeys | undefined, stored: string): string {
    return keys === undefined || !isSealedText(stored) ? stored : openText(keys, stored, ENTRY);
  }
}

/** One generation's keys, as an append opens what it reads (texts stored before encryption as they are) and seals what it writes. */
export interface GenerationSeal {
  readonly generation: number;
  /** An entry's text as appended. */
  openEntry(stored: string): string;
  /** An entry's text as stored. */
  sealEntry(text: string): string;
  /** A summary as the caller folded it. */
  openSummary(stored: string | null): string | null;
  /** A summary as stored. */
  sealSummary(summary: string): string;
}

/** `project/session[/subpath]`, for messages. */
function describe(key: MirrorKey): string {
  return [key.project, key.session, ...(key.subpath === undefined ? [] : [key.subpath])].join("/");
}

/**
 * The data keys one append takes, generation by generation: taking a generation's keys makes its key
 * again if a drop destroyed it meanwhile, so every generation taken below the key's current one is
 * destroyed again (`destroyBelow`) as soon as the append learns the key moved past it, and when it ends,
 * stored or failed: no key of a dropped generation is left. Nothing for an unencrypted store.
 */
export class AppendKeys {
  readonly #seal: MirrorSeal | undefined;
  readonly #key: MirrorKey;
  readonly #taken = new Set<number>();

  constructor(seal: MirrorSeal | undefined, key: MirrorKey) {
    this.#seal = seal;
    this.#key = key;
  }

  /** Whether the append has taken any generation's keys. */
  get taken(): boolean {
    return this.#taken.size > 0;
  }

  /** The generation's keys to open and seal with (undefined unencrypted), the generation recorded. */
  async forGeneration(generation: number): Promise<GenerationSeal | undefined> {
    if (this.#seal === undefined) return undefined;
    this.#taken.add(generation);
    return this.#seal.forAppend(this.#key, generation);
  }

  /** Destroys the keys of the generations taken below `current` (the key's generation now). */
  async destroyBelow(current: number): Promise<void> {
    for (const generation of [...this.#taken]) {
      if (generation >= current) continue;
      await this.#seal?.destroy(this.#key, generation);
      this.#taken.delete(generation);
    }
  }
}

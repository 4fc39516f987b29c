import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { type Keyring, StorageError } from "@palimpsest/core";
import { LRUCache } from "lru-cache";

/** The two keys derived from a session's data key: one encrypts its content, one keys its content hashes. */
export interface SessionKeys {
  readonly sessionId: string;
  readonly encrypt: Uint8Array;
  readonly mac: Uint8Array;
}

/** Sessions whose keys a store keeps in memory (the least recently used are dropped past it). */
const CACHED_SESSIONS = 10_000;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** What a sealed text starts with: the format, so a later one can be told apart. */
const SEALED_PREFIX = "v1.";

/**
 * One store's access to its tenant's session keys (through the caller's Keyring), cached, and the
 * primitives over them: AES-256-GCM for content (a fresh IV each time, bound to what the text is by its
 * additional data) and HMAC-SHA-256 for content hashes (so a hash kept in a backup confirms no guess once
 * the key is gone). The keys are derived from the data key with HKDF.
 */
export class ContentCipher {
  readonly #keyring: Keyring;
  readonly #tenant: string;
  readonly #cache = new LRUCache<string, Promise<SessionKeys | undefined>>({ max: CACHED_SESSIONS });

  /** The cipher of `tenant`'s sessions, whose data keys `keyring` keeps. */
  constructor(keyring: Keyring, tenant: string) {
    this.#keyring = keyring;
    this.#tenant = tenant;
  }

  /** The session's keys, made (and kept by the keyring) when it has none: for a write. */
  async keysToWrite(sessionId: string): Promise<SessionKeys> {
    const keys = await this.#keys(sessionId, true);
    if (keys === undefined) throw new StorageError("keyring", `the keyring made no data key for session ${sessionId}`);
    return keys;
  }

  /**
   * The session's keys, for a read of content sealed under them: a StorageError when the keyring has none
   * (destroyed by an erasure that did not finish, or another keyring than the one that wrote it).
   */
  async keysToRead(sessionId: string): Promise<SessionKeys> {
    const keys = await this.#keys(sessionId, false);
    if (keys !== undefined) return keys;
    throw new StorageError(
      "decrypt",
      `session ${sessionId}'s content is encrypted under a data key its keyring does not hold: the key was ` +
        "destroyed by an erasure that did not finish (erase the session again), or this is not the keyring it was written with",
    );
  }

  /** The session's keys, or undefined when the keyring has none (never made, or destroyed). */
  keysIfKept(sessionId: string): Promise<SessionKeys | undefined> {
    return this.#keys(sessionId, false);
  }

  /** Destroys the session's data key (the keyring's and this store's copy). */
  async destroy(sessionId: string): Promise<void> {
    this.#cache.delete(sessionId);
    await this.#keyring.destroyKey({ tenant: this.#tenant, sessionId });
    this.#cache.delete(sessionId); // a read that raced the destruction may have cached it again
  }

  async #keys(sessionId: string, create: boolean): Promise<SessionKeys | undefined> {
    const cached = this.#cache.get(sessionId);
    if (cached !== undefined) {
      const keys = await cached;
      if (keys !== undefined || !create) return keys;
    }
    const loading = this.#load(sessionId, create);
    this.#cache.set(sessionId, loading);
    const forget = () => {
      if (this.#cache.peek(sessionId) === loading) this.#cache.delete(sessionId);
    };
    const keys = await loading.catch((error: unknown) => {
      forget();
      throw error;
    });
    if (keys === undefined) forget(); // it may be made later: ask the keyring again then
    return keys;
  }

  async #load(sessionId: string, create: boolean): Promise<SessionKeys | undefined> {
    const key = await this.#keyring.dataKey({ tenant: this.#tenant, sessionId }, create);
    if (key === undefined) return undefined;
    if (key.length !== 32) {
      throw new StorageError("keyring", `the keyring gave session ${sessionId} a key of ${key.length} bytes, not 32`);
    }
    return deriveKeys(sessionId, key);
  }
}

/** The content and hash keys of a session's data key; the hash key derived when first used (a read needs none). */
function deriveKeys(sessionId: string, dataKey: Uint8Array): SessionKeys {
  const derive = (purpose: string) => new Uint8Array(hkdfSync("sha256", dataKey, "", `palimpsest ${purpose}`, 32));
  let mac: Uint8Array | undefined;
  return {
    sessionId,
    encrypt: derive("content"),
    get mac() {
      mac ??= derive("content hash");
      return mac;
    },
  };
}

/**
 * `plain` (a text as UTF-8, or bytes) encrypted under the session's content key, bound to `context` (what
 * it is), as bytes: the IV, the tag, the ciphertext. For a column of bytes (no base64 to encode or decode).
 */
export function sealBytes(keys: SessionKeys, plain: string | Uint8Array, context: string): Uint8Array {
  return encrypt(keys, plain, context);
}

/** sealBytes, as a Buffer (kept out of the declarations: a user's program need not know Node's types). */
function encrypt(keys: SessionKeys, plain: string | Uint8Array, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keys.encrypt, iv);
  cipher.setAAD(Buffer.from(context));
  const sealed = Buffer.concat([
    typeof plain === "string" ? cipher.update(plain, "utf8") : cipher.update(plain),
    cipher.final(),
  ]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

/** `text` sealed (sealBytes) for a text column: `v1.` and base64. */
export function sealText(keys: SessionKeys, text: string, context: string): string {
  return SEALED_PREFIX + encrypt(keys, text, context).toString("base64");
}

/** The text sealText sealed with the same keys and context; a StorageError when it does not open. */
export function openText(keys: SessionKeys, sealed: string, context: string): string {
  const bytes = sealed.startsWith(SEALED_PREFIX)
    ? Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64")
    : undefined;
  return decrypt(keys, bytes, context).toString("utf8");
}

/** The bytes sealBytes sealed with the same keys and context; a StorageError when they do not open. */
export function openBytes(keys: SessionKeys, bytes: Uint8Array | undefined, context: string): Uint8Array {
  return decrypt(keys, bytes, context);
}

/** openBytes, as a Buffer. */
function decrypt(keys: SessionKeys, bytes: Uint8Array | undefined, context: string): Buffer {
  try {
    if (bytes === undefined || bytes.length < IV_BYTES + TAG_BYTES) throw new Error("not a sealed text");
    const decipher = createDecipheriv("aes-256-gcm", keys.encrypt, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch (error) {
    throw new StorageError(
      "decrypt",
      `session ${keys.sessionId}'s ${context} does not decrypt (damaged, or another key)`,
      {
        cause: error,
      },
    );
  }
}

/** Whether a stored text is one sealText made (a hash is hex; a sealed text starts with the format). */
export function isSealedText(text: string): boolean {
  return text.startsWith(SEALED_PREFIX);
}

/** A content hash keyed by the session's hash key: equal for equal hashes, meaningless without the key. */
export function keyedHash(keys: SessionKeys, hash: string): string {
  return createHmac("sha256", keys.mac).update(hash).digest("hex");
}

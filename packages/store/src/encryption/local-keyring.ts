import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, mkdir, open, unlink } from "node:fs/promises";
import { join } from "node:path";
import { type Keyring, type SessionKeyRef, StorageError, ValidationError } from "@palimpsest/core";

/** How a local keyring is opened. */
export interface LocalKeyringOptions {
  /** The folder its key files live in (created, owner-only, when missing): not beside the database's backups. */
  directory: string;
  /** The key every data key is wrapped under (AES-256-GCM): 32 bytes, e.g. `openssl rand -base64 32`, decoded. */
  masterKey: Uint8Array;
}

/** A wrapped key file: format byte, IV, GCM tag, the 32-byte data key encrypted. */
const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const FILE_BYTES = 1 + IV_BYTES + TAG_BYTES + KEY_BYTES;

/**
 * A keyring in a folder of this machine: one file per session holding its data key wrapped under
 * `masterKey` (bound to the tenant and session), written durably (fsync) before it is used, created
 * atomically (a hard link: two processes creating one at once keep the first), and destroyed by
 * overwriting it with zeros and removing it. For tests and single-machine deployments; a fleet keeps its
 * keys in a key service (see Keyring). A masterKey of another length is a ValidationError.
 */
export async function openLocalKeyring(options: LocalKeyringOptions): Promise<Keyring> {
  const { directory, masterKey } = options;
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== KEY_BYTES) {
    throw new ValidationError(`a local keyring's masterKey must be ${KEY_BYTES} bytes`, ["masterKey: not 32 bytes"], {
      path: "masterKey",
    });
  }
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const master = Buffer.from(masterKey);
  const fileOf = (ref: SessionKeyRef) =>
    join(directory, createHash("sha256").update(`${ref.tenant}\0${ref.sessionId}`).digest("hex"));
  const aad = (ref: SessionKeyRef) => Buffer.from(`palimpsest data key\0${ref.tenant}\0${ref.sessionId}`);

  const unwrap = (ref: SessionKeyRef, file: Buffer): Uint8Array => {
    if (file.length !== FILE_BYTES || file[0] !== FORMAT) {
      throw new StorageError("keyring", `the key file of session ${ref.sessionId} is damaged`);
    }
    const decipher = createDecipheriv("aes-256-gcm", master, file.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(aad(ref));
    decipher.setAuthTag(file.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(file.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch (error) {
      throw new StorageError(
        "keyring",
        `the master key does not open session ${ref.sessionId}'s data key (another master key, or a damaged file)`,
        { cause: error },
      );
    }
  };

  const wrap = (ref: SessionKeyRef, key: Uint8Array): Buffer => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", master, iv);
    cipher.setAAD(aad(ref));
    const sealed = Buffer.concat([cipher.update(key), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), sealed]);
  };

  // Read synchronously: a 61-byte file takes microseconds so, against a few tenths of a millisecond through
  // the thread pool (fs/promises), which a store opened afresh pays on each session's first read.
  const read = async (file: string): Promise<Buffer | undefined> => {
    try {
      return readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  };

  const create = async (ref: SessionKeyRef, file: string): Promise<Uint8Array> => {
    const key = randomBytes(KEY_BYTES);
    const temporary = `${file}.${randomBytes(8).toString("hex")}.tmp`;
    await writeDurably(temporary, wrap(ref, key));
    try {
      await link(temporary, file); // atomic: fails when another process kept one first
      await syncFolder(directory);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const kept = await read(file);
      if (kept === undefined) throw error;
      return unwrap(ref, kept);
    } finally {
      await unlink(temporary).catch(() => {});
    }
  };

  return {
    async dataKey(ref, createIfMissing) {
      const file = fileOf(ref);
      const kept = await read(file);
      if (kept !== undefined) return unwrap(ref, kept);
      return createIfMissing ? create(ref, file) : undefined;
    },
    async destroyKey(ref) {
      const file = fileOf(ref);
      const handle = await open(file, "r+").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return undefined;
        throw error;
      });
      if (handle === undefined) return;
      try {
        await handle.write(Buffer.alloc(FILE_BYTES), 0, FILE_BYTES, 0);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await unlink(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      await syncFolder(directory);
    },
  };
}

/** Writes `bytes` to a new file and flushes it to the disk. */
async function writeDurably(file: string, bytes: Buffer): Promise<void> {
  const handle = await open(file, "wx", 0o600);
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a folder's entries (a new or removed name) to the disk. */
async function syncFolder(directory: string): Promise<void> {
  const handle = await open(directory, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

import type { Keyring } from "@palimpsest/core";
import { openLocalKeyring } from "@palimpsest/store";
import type { TestKeyring } from "../support/test-keyring.ts";

/** A local keyring's folder and master key (hex), as a fault worker is sent it to encrypt as its parent does. */
export interface WorkerKeys {
  directory: string;
  masterKey: string;
}

/** What a worker needs to open the same keyring as `keys`. */
export function workerKeys(keys: TestKeyring): WorkerKeys {
  return { directory: keys.directory, masterKey: Buffer.from(keys.masterKey).toString("hex") };
}

/** The keyring `keys` names, opened in the worker. */
export function openWorkerKeyring(keys: WorkerKeys): Promise<Keyring> {
  return openLocalKeyring({ directory: keys.directory, masterKey: Buffer.from(keys.masterKey, "hex") });
}

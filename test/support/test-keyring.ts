import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Keyring } from "@palimpsest/core";
import { openLocalKeyring } from "@palimpsest/store";

/** A local keyring of a test's own: its folder (deleted by dispose), master key and the keyring. */
export interface TestKeyring {
  readonly directory: string;
  readonly masterKey: Uint8Array;
  readonly keyring: Keyring;
  dispose(): Promise<void>;
}

/** A local keyring in a fresh temporary folder under a random master key. */
export async function testKeyring(): Promise<TestKeyring> {
  const directory = await mkdtemp(join(tmpdir(), "palimpsest-keys-"));
  const masterKey = randomBytes(32);
  return {
    directory,
    masterKey,
    keyring: await openLocalKeyring({ directory, masterKey }),
    dispose: () => rm(directory, { recursive: true, force: true }),
  };
}

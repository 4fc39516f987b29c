/**
 * What encrypting content costs (the keyring option, docs/encryption.md): the same agent turns and the
 * same resume (turns-and-resume.ts) on a plain store and on one encrypting with a local keyring,
 * alternated on one database. The resume is by a store opened afresh (no data key in its memory yet), as
 * after a restart; both snapshot as the runtime does by default, so it opens a sealed snapshot.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Palimpsest } from "@palimpsest/runtime";
import { type Engine, type OpenEventStoreOptions, openEventStore, openLocalKeyring } from "@palimpsest/store";
import { cheapCounter } from "../test/faults/fault-workload.ts";
import { progress } from "./stats.ts";
import { alternateTurnsAndResume, type TurnsAndResume } from "./turns-and-resume.ts";

/** One store on one engine, with its figures. */
export interface EncryptionRow extends TurnsAndResume {
  engine: Engine;
  store: "plain" | "encrypted (local keyring)";
}

/** Runs the turns and resumes on a plain and an encrypted store in turn, on the database at `url`. */
export async function runEncryptionBench(engine: Engine, url: string, quick: boolean): Promise<EncryptionRow[]> {
  const directory = await mkdtemp(join(tmpdir(), "palimpsest-bench-keys-"));
  const keyring = await openLocalKeyring({ directory, masterKey: randomBytes(32) });
  const runtime = async (options: OpenEventStoreOptions) =>
    new Palimpsest({ store: await openEventStore(url, options), counterFor: async () => cheapCounter });
  const stores = [
    { store: "plain", options: {} },
    { store: "encrypted (local keyring)", options: { keyring } },
  ] as const;
  try {
    const figures = await alternateTurnsAndResume(
      stores.map((s) => ({
        open: async () => ({ writer: await runtime(s.options), reader: await runtime(s.options) }),
      })),
      quick,
    );
    return stores.map((s, i) => {
      const row = { engine, store: s.store, ...(figures[i] as TurnsAndResume) };
      progress(
        `encryption ${engine} ${s.store}: p50 turn ${row.p50TurnMs.toFixed(2)} ms, resume ${row.resumeMs.toFixed(2)} ms, again ${row.againMs.toFixed(2)} ms`,
      );
      return row;
    });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * What encrypting content costs (the keyring option, docs/encryption.md): the same agent turns
 * (session-append's) and the same resume of the session they wrote, through the runtime on one database,
 * on a plain store and on one encrypting with a local keyring, alternated rep by rep. Both stores snapshot
 * as the runtime does by default, so a resume opens a sealed snapshot and the events after it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Palimpsest } from "@palimpsest/runtime";
import { type Engine, openEventStore, openLocalKeyring } from "@palimpsest/store";
import { cheapCounter } from "../test/faults/fault-workload.ts";
import { runTurns } from "./session-append.ts";
import { median, percentile, progress } from "./stats.ts";

/** One store on one engine: its turns' p50 and p99, and its resumes' median, in ms. */
export interface EncryptionRow {
  engine: Engine;
  store: "plain" | "encrypted (local keyring)";
  turns: number;
  p50TurnMs: number;
  p99TurnMs: number;
  resumeMs: number;
}

/** Runs the turns and a resume on a plain and an encrypted store in turn, `reps` times after a warm-up, on `url`. */
export async function runEncryptionBench(engine: Engine, url: string, quick: boolean): Promise<EncryptionRow[]> {
  const directory = await mkdtemp(join(tmpdir(), "palimpsest-bench-keys-"));
  const keyring = await openLocalKeyring({ directory, masterKey: randomBytes(32) });
  const stores = [
    { store: "plain", open: () => openEventStore(url) },
    { store: "encrypted (local keyring)", open: () => openEventStore(url, { keyring }) },
  ] as const;
  const turns = quick ? 30 : 100;
  const reps = quick ? 3 : 7;
  const times = stores.map(() => ({ turns: [] as number[], resumes: [] as number[] }));
  try {
    for (let rep = -1; rep < reps; rep++) {
      for (const [i, s] of stores.entries()) {
        const runtime = new Palimpsest({ store: await s.open(), counterFor: async () => cheapCounter });
        const reader = new Palimpsest({ store: await s.open(), counterFor: async () => cheapCounter });
        try {
          const sessionId = `enc-${i}-${rep + 1}-${randomUUID()}`;
          const turnMs = await runTurns(runtime, sessionId, turns);
          // A store of its own, as a resume after a restart: no data key in its memory yet.
          const start = performance.now();
          await reader.resume(sessionId);
          const resumeMs = performance.now() - start;
          if (rep < 0) continue; // warm-up
          times[i]?.turns.push(...turnMs);
          times[i]?.resumes.push(resumeMs);
        } finally {
          await runtime.close();
          await reader.close();
        }
      }
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  return stores.map((s, i) => {
    const t = times[i] ?? { turns: [], resumes: [] };
    const row = {
      engine,
      store: s.store,
      turns: t.turns.length,
      p50TurnMs: percentile(t.turns, 0.5),
      p99TurnMs: percentile(t.turns, 0.99),
      resumeMs: median(t.resumes),
    };
    progress(
      `encryption ${engine} ${s.store}: p50 turn ${row.p50TurnMs.toFixed(2)} ms, resume ${row.resumeMs.toFixed(2)} ms`,
    );
    return row;
  });
}

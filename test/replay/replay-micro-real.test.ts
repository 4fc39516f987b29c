import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseTranscript } from "@palimpsest/core";
import { openPalimpsest, type Palimpsest, profileNamed, replaySession } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realTranscriptFiles, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { replayProblems } from "./replay-check.ts";

// 32K (threshold 20,400): micro passes on every request, and the long transcripts reach the backstop too.
const RUNS = [
  { policy: "none", micro: {} },
  { policy: "prune-first", micro: { everyNTurns: 2 } },
] as const;

describe.skipIf(!HAVE_TRANSCRIPTS)("micro replay of every real transcript", () => {
  let runtime: Palimpsest;
  beforeAll(async () => {
    runtime = await openPalimpsest({ url: ":memory:" });
  });
  afterAll(() => runtime.close());

  for (const file of realTranscriptFiles()) {
    it(`${file}: the view invariants hold after every micro pass and backstop`, { timeout: 120_000 }, async () => {
      const sessions = parseTranscript(readFileSync(join(TRANSCRIPTS_DIR, file), "utf8"), { fileName: basename(file) });
      let passes = 0;
      for (const source of sessions) {
        for (const run of RUNS) {
          const problems: string[] = [];
          const replay = await replaySession(runtime, source, {
            ...run,
            profile: profileNamed("anthropic"),
            contextWindow: 32_000,
            onCompaction: async (session, c) => {
              const found = await replayProblems(runtime, session);
              const where = `${source.externalId} ${run.policy} ${c.kind} request ${c.requestIndex}`;
              problems.push(...found.map((p) => `${where}: ${p}`));
            },
          });
          expect(problems).toEqual([]);
          expect(replay.summaryFailures).toBe(0);
          passes += replay.compactions.length;
        }
      }
      expect(sessions.length).toBeGreaterThan(0);
      console.info(`${file}: ${sessions.length} sessions, ${passes} compactions checked`);
    });
  }
});

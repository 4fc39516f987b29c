import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { type ImportedSession, parseTranscript } from "@palimpsest/core";
import { openPalimpsest, type Palimpsest, profileNamed, replaySession } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realTranscriptFiles, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { replayProblems } from "./replay-check.ts";

// 32K: threshold 20,400 (the 64K floor capped at 85% of 24,000), so the long transcripts compact many
// times; 16K (threshold 10,200, a 3,200-token tail) makes the short ones compact too. Well under a minute.
const WINDOWS = [32_000, 16_000] as const;
const POLICIES = ["summary", "prune-first"] as const;
const PROFILES = ["anthropic", "openai", "local"] as const;

function sessionsOf(file: string): ImportedSession[] {
  return parseTranscript(readFileSync(join(TRANSCRIPTS_DIR, file), "utf8"), { fileName: basename(file) });
}

describe.skipIf(!HAVE_TRANSCRIPTS)("replay of every real transcript under every policy and profile", () => {
  let runtime: Palimpsest;
  beforeAll(async () => {
    runtime = await openPalimpsest({ url: ":memory:" });
  });
  afterAll(() => runtime.close());

  for (const file of realTranscriptFiles()) {
    it(`${file}: the view invariants hold after every compaction`, { timeout: 120_000 }, async () => {
      const sessions = sessionsOf(file);
      let compactions = 0;
      for (const source of sessions) {
        for (const policy of POLICIES) {
          for (const [profile, contextWindow] of PROFILES.flatMap((p) => WINDOWS.map((w) => [p, w] as const))) {
            const problems: string[] = [];
            const replay = await replaySession(runtime, source, {
              policy,
              profile: profileNamed(profile),
              contextWindow,
              onCompaction: async (session, c) => {
                const found = await replayProblems(runtime, session);
                problems.push(
                  ...found.map(
                    (p) => `${source.externalId} ${policy}/${profile}/${contextWindow} request ${c.requestIndex}: ${p}`,
                  ),
                );
              },
            });
            expect(problems).toEqual([]);
            expect(replay.summaryFailures).toBe(0);
            compactions += replay.compactions.length;
          }
        }
      }
      expect(sessions.length).toBeGreaterThan(0);
      console.info(`${file}: ${sessions.length} sessions, ${compactions} compactions checked`);
    });
  }
});

import { telemetryFromLog } from "@palimpsest/core";
import { replaySession } from "@palimpsest/eval/testing";
import { openPalimpsest, type Palimpsest, sessionThreshold } from "@palimpsest/runtime";
import { profileNamed } from "@palimpsest/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  canCompactInReplay,
  HAVE_TRANSCRIPTS,
  realSessions,
  realTranscriptFiles,
  replayWindowFor,
} from "../support/real-transcripts.ts";
import { staleBasisProblems } from "../support/stale-basis.ts";
import { telemetryLeaks } from "../support/telemetry-leaks.ts";
import { replayProblems } from "./replay-check.ts";

// Each profile with a window of a fraction of each session's own token total: every file that can compact
// (canCompactInReplay) compacts under both policies (asserted), the long ones many times, whatever their size.
const RUNS = [
  ["anthropic", 1 / 2],
  ["openai", 1 / 4],
  ["local", 1 / 3],
] as const;
const POLICIES = ["summary", "prune-first"] as const;

describe.skipIf(!HAVE_TRANSCRIPTS)("replay of every real transcript under every policy and profile", () => {
  let runtime: Palimpsest;
  beforeAll(async () => {
    runtime = await openPalimpsest({ url: ":memory:" });
  });
  afterAll(() => runtime.close());

  for (const file of realTranscriptFiles()) {
    it(`${file}: every policy compacts (when it can), and every invariant holds on every session`, {
      timeout: 240_000,
    }, async () => {
      const sessions = realSessions(file);
      const compactions = { summary: 0, "prune-first": 0 };
      for (const source of sessions) {
        const runs = await Promise.all(
          RUNS.map(async ([p, f]) => [p, await replayWindowFor(source, f, profileNamed(p))] as const),
        );
        let last: string | undefined;
        for (const policy of POLICIES) {
          for (const [profile, contextWindow] of runs) {
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
            compactions[policy] += replay.compactions.length;
            // Invariant 7 on the telemetry of every replay: no run of its text is in the transcript.
            const session = await runtime.resume(replay.sessionId);
            const log = await runtime.store.readStream(replay.sessionId);
            expect(telemetryLeaks(telemetryFromLog(log, { threshold: sessionThreshold(session) }), log)).toEqual([]);
            last = replay.sessionId;
          }
        }
        // Invariant 6 on every session: a compaction planned on a basis another handle moved is refused.
        if (last !== undefined) expect((await staleBasisProblems(runtime, last)) ?? []).toEqual([]);
      }
      expect(sessions.length).toBeGreaterThan(0);
      console.info(`${file}: ${sessions.length} sessions, compactions ${JSON.stringify(compactions)}`);
      if (sessions.some(canCompactInReplay)) {
        expect(compactions.summary).toBeGreaterThan(0);
        expect(compactions["prune-first"]).toBeGreaterThan(0);
      }
    });
  }
});

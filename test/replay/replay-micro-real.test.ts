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
import { telemetryLeaks } from "../support/telemetry-leaks.ts";
import { rollingMarkerProblems } from "../support/view-invariants.ts";
import { replayProblems } from "./replay-check.ts";

// A window of half of each session's token total: micro passes run on every request, and the backstop
// policy is reached too; every file compacts under both runs (asserted).
const FRACTION = 1 / 2;
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
    it(`${file}: every run compacts (when it can); the invariants hold after every micro pass and backstop`, {
      timeout: 240_000,
    }, async () => {
      const sessions = realSessions(file);
      const passes = { none: 0, "prune-first": 0 };
      for (const source of sessions) {
        const contextWindow = await replayWindowFor(source, FRACTION, profileNamed("anthropic"));
        for (const run of RUNS) {
          const problems: string[] = [];
          const replay = await replaySession(runtime, source, {
            ...run,
            profile: profileNamed("anthropic"),
            contextWindow,
            onCompaction: async (session, c) => {
              // Invariant 5 after every pass: only the newest rolling summary marker is live.
              const log = await runtime.store.readStream(session.id);
              const found = [...(await replayProblems(runtime, session)), ...rollingMarkerProblems(session, log)];
              const where = `${source.externalId} ${run.policy} ${c.kind} request ${c.requestIndex}`;
              problems.push(...found.map((p) => `${where}: ${p}`));
            },
          });
          expect(problems).toEqual([]);
          expect(replay.summaryFailures).toBe(0);
          passes[run.policy] += replay.compactions.length;
          const session = await runtime.resume(replay.sessionId);
          const log = await runtime.store.readStream(replay.sessionId);
          expect(telemetryLeaks(telemetryFromLog(log, { threshold: sessionThreshold(session) }), log)).toEqual([]);
        }
      }
      expect(sessions.length).toBeGreaterThan(0);
      console.info(`${file}: ${sessions.length} sessions, compactions ${JSON.stringify(passes)}`);
      if (sessions.some(canCompactInReplay)) {
        expect(passes.none).toBeGreaterThan(0);
        expect(passes["prune-first"]).toBeGreaterThan(0);
      }
    });
  }
});

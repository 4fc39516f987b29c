import { customProfile, PROVIDER_PROFILES } from "@palimpsest/core";
import { breakEvenPass, type ReplayCompaction, type SessionReplay } from "@palimpsest/eval";
import { breakEvenOverSessions, policyReplay, replaySession } from "@palimpsest/eval/testing";
import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { generatedSession } from "./generated-transcript.ts";
import { replayProblems } from "./replay-check.ts";

const ANTHROPIC = PROVIDER_PROFILES.anthropic ?? customProfile({});
const WINDOW = 64_000;
const SHAPE = { steps: 60, shellTokens: 1_500, readTokens: 300 };

describe("breakEvenPass: the first pass after which the cumulative saving is ≥ 0 and stays so", () => {
  it.each([
    [[], null],
    [[5, 5], 1],
    [[-100, 50, 60], 3], // cumulative -100, -50, 10
    [[10, -20, 30], 3], // 10, -10, 20: ≥ 0 after pass 1 but not after pass 2
    [[-100, 200, -150], null], // -100, 100, -50: ends below zero
    [[-100, 100, 0], 2], // exactly zero counts as broken even
  ])("%j → %s", (savings, expected) => {
    expect(breakEvenPass(savings)).toBe(expected);
  });

  it("over sessions: the latest session's pass, null if one never breaks even", () => {
    expect(breakEvenOverSessions([[-1, 2], [5], []])).toBe(2);
    expect(breakEvenOverSessions([[-1, 2], [-5]])).toBeNull();
    expect(breakEvenOverSessions([[], []])).toBeNull();
  });
});

function micro(c: ReplayCompaction): boolean {
  return c.kind === "micro" || c.kind === "defrag";
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`replay --micro (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    const runs = new Map<string, SessionReplay>();
    for (const policy of ["none", "summary", "prune-first"] as const) {
      it(`micro with backstop ${policy}: every view invariant holds after every pass`, async () => {
        const checks: string[] = [];
        const replay = await replaySession(runtime, generatedSession(SHAPE), {
          policy,
          // with a backstop, a pass every third turn lets the view grow to the batch threshold
          micro: policy === "none" ? {} : { everyNTurns: 3 },
          profile: ANTHROPIC,
          contextWindow: WINDOW,
          onCompaction: async (session, c) => {
            checks.push(...(await replayProblems(runtime, session)).map((p) => `request ${c.requestIndex}: ${p}`));
            const markers = session.state.live.filter((e) => e.placedBy?.kind === "rolling-summary");
            if (markers.length > 1) checks.push(`request ${c.requestIndex}: ${markers.length} markers live`);
          },
        });
        runs.set(policy, replay);
        expect(checks).toEqual([]);
        expect(replay.summaryFailures).toBe(0);
        const log = await runtime.store.readStream(replay.sessionId);
        const targets = new Set(log.flatMap((e) => (e.type === "messages.superseded" ? e.data.targets : [])));
        const micros = log.filter((e) => e.type === "messages.superseded" && e.data.mode === "micro");
        for (const e of micros) {
          if (e.type !== "messages.superseded") continue;
          const users = log.filter(
            (a) =>
              a.type === "message.appended" &&
              a.data.message.role === "user" &&
              e.data.targets.includes(a.data.message.id),
          );
          expect(users).toEqual([]); // invariant 4: a micro pass never absorbs a user message
        }
        expect(targets.size).toBeGreaterThan(0);
        for (const c of replay.compactions.filter(micro)) {
          // the next request departs from the cached prompt exactly where the pass changed it
          expect(replay.estimates[c.requestIndex + 1]?.earliestChangedIndex).toBe(c.earliestChangedIndex);
          expect(replay.estimates[c.requestIndex + 1]?.cacheBreak).toBe(true);
          expect(c.auxInputTokens).toBeGreaterThan(0);
        }
      });
    }

    it("the metrics follow their definitions (passes, tokens saved, break-even, events by kind, cost)", () => {
      const alone = runs.get("none");
      const backed = runs.get("summary");
      if (alone === undefined || backed === undefined) throw new Error("earlier tests did not run");
      const prices = ANTHROPIC.prices;
      const label = {
        policy: "micro",
        profile: "anthropic",
        contextWindow: WINDOW,
        threshold: null,
        summarizerPrices: prices,
      };
      const m = policyReplay(label, [alone]);
      const passes = alone.compactions.filter(micro);
      const savings = passes.map((c) => c.tokensBefore - c.tokensAfter);
      expect(passes.length).toBeGreaterThan(5);
      expect(alone.compactions.every(micro)).toBe(true); // no backstop: micro passes only
      expect(m.microPasses).toBe(passes.length);
      expect(m.compressionEvents).toBe(passes.length);
      expect(m.eventsByKind).toEqual({
        summary: 0,
        prune: 0,
        micro: passes.filter((c) => c.kind === "micro").length,
        defrag: passes.filter((c) => c.kind === "defrag").length,
      });
      expect(m.microTokensSavedTotal).toBe(savings.reduce((a, b) => a + b, 0));
      expect(m.breakEvenPass).toBe(breakEvenPass(savings));
      expect(m.sessions[0]?.breakEvenPass).toBe(m.breakEvenPass);
      expect(m.auxSummaryCalls).toBe(passes.length); // each micro pass is one summarizer call
      expect(m.summaryEvents).toBe(0);
      expect(m.cacheBreaksPerTurn).toBe(m.cacheBreaks / m.turns);
      // from the second pass of a run of absorbs on, the marker is replaced rather than added
      const absorbs = passes.filter((c) => c.kind === "micro");
      expect(absorbs[1]?.auxInputTokens).toBeGreaterThan(0);
      const withBackstop = policyReplay({ ...label, policy: "micro+summary" }, [backed]);
      expect(withBackstop.eventsByKind.summary).toBeGreaterThan(0);
      expect(withBackstop.summaryEvents).toBe(withBackstop.eventsByKind.summary);
      expect(withBackstop.auxSummaryCalls).toBe(withBackstop.compressionEvents - withBackstop.eventsByKind.prune);
    });
  });
}

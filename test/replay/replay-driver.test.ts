import { type CacheEstimate, customProfile, PROVIDER_PROFILES } from "@palimpsest/core";
import { IDENTITY_CALIBRATION } from "@palimpsest/core/testing";
import { type MeasuredCompaction, type ReplayPolicy, replayTranscript, type SessionReplay } from "@palimpsest/eval";
import { policyReplay, replaySession } from "@palimpsest/eval/testing";
import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { generatedSession } from "./generated-transcript.ts";
import { replayProblems } from "./replay-check.ts";

const WINDOW = 64_000; // max output 16,000 (a quarter), threshold 40,800 (the 64K floor capped at 85% of 48,000)
const BIG = { steps: 90, shellTokens: 2_500, readTokens: 300 };
const ANTHROPIC = PROVIDER_PROFILES.anthropic ?? customProfile({});

function estimate(promptTokens: number, cacheBreak = false): CacheEstimate {
  return {
    promptTokens,
    cachedTokens: 0,
    uncachedTokens: promptTokens,
    cacheWriteTokens: 0,
    outputTokens: 10,
    cacheBreak,
    expired: false,
    earliestChangedIndex: null,
    // Each request is billed at its own estimate's cost: here $1/M input and $10/M output, all uncached.
    cost: (promptTokens * 1 + 10 * 10) / 1e6,
  };
}

function observed(
  kind: "prune" | "summary",
  requestIndex: number,
  before: number,
  after: number,
  kept = 0,
): MeasuredCompaction {
  const zero = { userRequests: 0, filePaths: 0, errorNames: 0, commands: 0, numbers: 0 };
  const fidelity = {
    removed: { ...zero, filePaths: 2 },
    kept: { ...zero, filePaths: kept },
    removedTokens: before - after,
    replacementTokens: 10,
  };
  const aux =
    kind === "summary"
      ? { auxInputTokens: before - 100, auxOutputTokens: 50 }
      : { auxInputTokens: 0, auxOutputTokens: 0 };
  return {
    kind,
    tokensBefore: before,
    tokensAfter: after,
    earliestChangedIndex: requestIndex % 7,
    requestIndex,
    fidelity,
    ...aux,
  };
}

function run(estimates: CacheEstimate[], compactions: MeasuredCompaction[]): SessionReplay {
  return {
    externalId: "x",
    sessionId: "x",
    estimates,
    realUsage: estimates.map(() => undefined),
    compactions,
    syncCompactions: [],
    summaryFailures: 0,
    overflowTurns: 0,
    floorCost: estimates.length / 1_000,
    cacheModel: {
      calibration: IDENTITY_CALIBRATION,
      ttlSeconds: 300,
      ttlSource: "profile",
      timed: false,
      prefixResets: new Map(),
      profile: ANTHROPIC,
    },
    budgetWindow: WINDOW,
    realCompactionAt: undefined,
    usagePairs: [],
    recalls: estimates.map((_, i) => ({
      recall: i % 2 === 0 ? 1 : 0.5,
      byKind: { userRequests: 1, filePaths: i % 2 === 0 ? 1 : 0, errorNames: null, commands: null, numbers: null },
    })),
    held: { userRequests: 1, filePaths: 3, errorNames: 0, commands: 0, numbers: 0 },
  };
}

describe("policy metrics follow their definitions", () => {
  it("counts, averages and ratios over two sessions by hand", () => {
    const a = run(
      Array.from({ length: 100 }, () => estimate(1_000)),
      [observed("prune", 10, 5_000, 3_000), observed("summary", 30, 6_000, 1_000), observed("prune", 60, 4_000, 3_000)],
    );
    const b = run(
      Array.from({ length: 100 }, () => estimate(500)),
      [observed("summary", 5, 2_000, 1_000), observed("prune", 15, 3_000, 2_000)],
    );
    const prices = { input: 1, cachedRead: 0, cacheWrite: 0, output: 10 };
    const m = policyReplay({ policy: "p", profile: "t", contextWindow: 1, threshold: 1, summarizerPrices: prices }, [
      a,
      b,
    ]);
    expect(m.turns).toBe(200);
    expect(m.compressionEventsPer100Turns).toBe(2.5); // 5 events over 200 requests
    expect(m.avgTurnsBetweenCompressions).toBe(20); // gaps 20, 30 (session a) and 10 (session b), never a→b
    expect(m.auxSummaryCalls).toBe(2);
    expect(m.avgTokensReclaimedPerEvent).toBe(2_000); // (2000 + 5000 + 1000 + 1000 + 1000) / 5
    expect(m.auxInputTokens).toBe(5_900 + 1_900);
    expect(m.auxOutputTokens).toBe(100);
    expect(m.totalPromptPlusAuxTokens).toBe(100_000 + 50_000 + 7_800 + 100);
    expect(m.earliestChangedIndex).toEqual([3, 2, 4, 5, 1]);
    expect(m.pruneOnlyToFullRatio).toBe(1.5);
    // 150,000 plain input at $1/M, 2,000 output at $10/M, summarizer 7,800 in at $1/M and 100 out at $10/M
    expect(m.estimatedCost).toBeCloseTo(0.15 + 0.02 + 0.0078 + 0.001, 10);
    expect(m.floorCost).toBeCloseTo(0.2, 10); // the two sessions' floors added
  });

  it("pools fidelity over sessions: recall over every request, keeps over every compaction", () => {
    const a = run(
      Array.from({ length: 4 }, () => estimate(1_000)),
      [observed("summary", 1, 5_000, 1_000, 2), observed("summary", 2, 5_000, 1_000, 1)],
    );
    const b = run([estimate(500), estimate(500)], [observed("prune", 1, 2_000, 1_000, 0)]);
    const prices = { input: 1, cachedRead: 0, cacheWrite: 0, output: 10 };
    const { fidelity } = policyReplay(
      { policy: "p", profile: "t", contextWindow: 1, threshold: 1, summarizerPrices: prices },
      [a, b],
    );
    expect(fidelity.requests).toBe(6);
    expect(fidelity.meanRecall).toBe(0.75); // half the requests at 1, half at 0.5
    expect(fidelity.meanRecallByKind.filePaths).toBe(0.5);
    expect(fidelity.meanRecallByKind.commands).toBeNull();
    expect(fidelity.compactions).toBe(3);
    expect(fidelity.removed.filePaths).toBe(6);
    expect(fidelity.keptRatio.filePaths).toBe(0.5); // 2 + 1 + 0 of 6
    expect(fidelity.sizeRatio).toBe(30 / 9_000);
    expect(fidelity.held.filePaths).toBe(6);
  });
});

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`replay driver (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("prices each request from the view before its assistant message (a hand-checkable no-compaction case)", async () => {
      const profile = customProfile({
        cache: { kind: "explicit-breakpoint", minCacheableTokens: 1, granularityTokens: 1 },
        prices: { input: 1, cachedRead: 0.1, cacheWrite: 2, output: 10 },
      });
      const source = generatedSession({ steps: 3, shellTokens: 50, readTokens: 20 });
      const replay = await replaySession(runtime, source, { policy: "summary", profile, contextWindow: 200_000 });
      const live = (await runtime.resume(replay.sessionId)).state.live;
      const requests = live.flatMap((e, i) => (e.message.role === "assistant" ? [i] : []));
      const tokensBefore = (i: number) => live.slice(0, i).reduce((n, e) => n + e.tokens, 0);
      const prompts = requests.map(tokensBefore);
      expect(replay.estimates.map((e) => e.promptTokens)).toEqual(prompts);
      expect(replay.estimates.map((e) => e.outputTokens)).toEqual(requests.map((i) => live[i]?.tokens));
      // the prompt only grows: each request reads the previous prompt from cache and writes the rest
      expect(replay.estimates.map((e) => e.cachedTokens)).toEqual([0, ...prompts.slice(0, -1)]);
      expect(replay.estimates.map((e) => e.cacheWriteTokens)).toEqual(prompts.map((p, i) => p - (prompts[i - 1] ?? 0)));
      expect(replay.estimates.some((e) => e.cacheBreak)).toBe(false);
      expect(replay.compactions).toEqual([]);
      const m = policyReplay(
        {
          policy: "summary",
          profile: "custom",
          contextWindow: 200_000,
          threshold: 0,
          summarizerPrices: profile.prices,
        },
        [replay],
      );
      const last = prompts.at(-1) ?? 0;
      const cached = prompts.slice(0, -1).reduce((a, b) => a + b, 0);
      const output = requests.reduce((n, i) => n + (live[i]?.tokens ?? 0), 0);
      expect(m.turns).toBe(6);
      expect(m.totalPromptPlusAuxTokens).toBe(prompts.reduce((a, b) => a + b, 0));
      expect(m.estimatedCost).toBeCloseTo((cached * 0.1 + last * 2 + output * 10) / 1e6, 12);
      // The floor writes each request's new tokens once and reads nothing again (there is no fixed prefix).
      expect(replay.floorCost).toBeCloseTo((last * 2 + output * 10) / 1e6, 12);
      expect(m.floorCost).toBe(replay.floorCost);
    });

    const runs = new Map<ReplayPolicy, SessionReplay>();
    for (const policy of ["summary", "prune-first", "none"] as const) {
      it(`${policy}: every view invariant holds after every compaction of a 64K-window replay`, async () => {
        const checks: string[][] = [];
        const replay = await replaySession(runtime, generatedSession(BIG), {
          policy,
          profile: ANTHROPIC,
          contextWindow: WINDOW,
          onCompaction: async (session) => {
            checks.push(await replayProblems(runtime, session));
          },
        });
        runs.set(policy, replay);
        expect(checks).toHaveLength(replay.compactions.length);
        expect(checks.flat()).toEqual([]);
        for (const c of replay.compactions) {
          expect(c.tokensAfter).toBeLessThan(c.tokensBefore);
          expect(c.earliestChangedIndex).toBeGreaterThanOrEqual(0);
          // the next request's prompt departs from the previous one exactly where the compaction changed it
          expect(replay.estimates[c.requestIndex + 1]?.earliestChangedIndex).toBe(c.earliestChangedIndex);
          expect(replay.estimates[c.requestIndex + 1]?.cacheBreak).toBe(true);
          if (c.kind === "prune") expect(c.auxInputTokens + c.auxOutputTokens).toBe(0);
          else expect(Math.min(c.auxInputTokens, c.auxOutputTokens)).toBeGreaterThan(0);
        }
      });
    }

    it("none never compacts and overflows instead; summary and prune-first differ as their policies say", () => {
      const none = runs.get("none");
      const summary = runs.get("summary");
      const prune = runs.get("prune-first");
      if (none === undefined || summary === undefined || prune === undefined)
        throw new Error("earlier tests did not run");
      expect(none.compactions).toEqual([]);
      expect(none.overflowTurns).toBeGreaterThan(0);
      expect(none.estimates.some((e) => e.cacheBreak)).toBe(false);
      // nothing removed: every request's prompt holds everything the conversation held
      expect(none.recalls).toHaveLength(none.estimates.length);
      expect(none.recalls.every((r) => r.recall === 1)).toBe(true);
      expect(Object.values(none.held).some((n) => n > 0)).toBe(true);
      for (const c of [...summary.compactions, ...prune.compactions]) {
        for (const kind of Object.keys(c.fidelity.removed) as (keyof typeof c.fidelity.removed)[]) {
          expect(c.fidelity.kept[kind]).toBeLessThanOrEqual(c.fidelity.removed[kind]);
        }
        expect(c.fidelity.removedTokens).toBeGreaterThan(c.fidelity.replacementTokens);
      }
      expect(summary.recalls.every((r) => r.recall >= 0 && r.recall <= 1)).toBe(true);
      expect(summary.compactions.length).toBeGreaterThan(1);
      expect(summary.compactions.every((c) => c.kind === "summary")).toBe(true);
      expect(summary.overflowTurns).toBe(0);
      // big unprotected shell outputs: prune-first stubs them and summarizes less often
      expect(prune.compactions.some((c) => c.kind === "prune")).toBe(true);
      const summaries = (r: SessionReplay) => r.compactions.filter((c) => c.kind === "summary").length;
      expect(summaries(prune)).toBeLessThan(summaries(summary));
      expect(prune.overflowTurns).toBe(0);
    });

    it("compares the uncompacted transcript's estimate with real usage up to the source's own compaction", async () => {
      const source = generatedSession({
        steps: 8,
        shellTokens: 100,
        readTokens: 50,
        usage: true,
        compactionBeforeStep: 5,
      });
      const replay = await replaySession(runtime, source, {
        policy: "prune-first",
        profile: ANTHROPIC,
        contextWindow: WINDOW,
      });
      expect(replay.realCompactionAt).toBe(10);
      expect(replay.estimates).toHaveLength(16);
      expect(replay.usagePairs).toHaveLength(10);
      expect(replay.usagePairs.map((p) => p.real.input)).toEqual(Array.from({ length: 10 }, (_, i) => 1_000 * (i + 1)));
    });

    it("replayTranscript folds one row per policy with its threshold", async () => {
      const replay = await replayTranscript([generatedSession({ steps: 30, shellTokens: 2_500, readTokens: 300 })], {
        policies: ["none", "prune-first"],
        profile: "openai",
        contextWindow: WINDOW,
      });
      expect(replay.policies.map((p) => [p.policy, p.threshold, p.profile])).toEqual([
        ["none", null, "openai"],
        ["prune-first", 40_800, "openai"],
      ]);
      expect(replay.policies[0]?.compressionEvents).toBe(0);
      expect(replay.policies[1]?.compressionEvents).toBeGreaterThan(0);
      expect(replay.usageComparison).toBeNull();
    });
  });
}

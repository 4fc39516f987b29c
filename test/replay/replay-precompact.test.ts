import { customProfile, PROVIDER_PROFILES } from "@palimpsest/core";
import { replayTranscript } from "@palimpsest/eval";
import { replaySession } from "@palimpsest/eval/testing";
import { type Palimpsest, PrecompactionScheduler } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { generatedSession } from "./generated-transcript.ts";
import { replayProblems } from "./replay-check.ts";

const ANTHROPIC = PROVIDER_PROFILES.anthropic ?? customProfile({});
const WINDOW = 64_000;
const SHAPE = { steps: 80, shellTokens: 1_500, readTokens: 300 };

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`replay with background pre-compaction (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    for (const policy of ["summary", "prune-first"] as const) {
      it(`${policy}: hits happen, a hit's sync compaction is marked, every view invariant holds after each compaction`, async () => {
        const scheduler = new PrecompactionScheduler({
          candidates: runtime.store,
          compaction: { policy, profile: ANTHROPIC, contextWindow: WINDOW },
          precompact: { debounceMs: 0 },
        });
        const problems: string[] = [];
        const replay = await replaySession(runtime, generatedSession(SHAPE, `pc-${policy}`), {
          policy,
          profile: ANTHROPIC,
          contextWindow: WINDOW,
          precompact: scheduler,
          onCompaction: async (session, c) => {
            problems.push(...(await replayProblems(runtime, session)).map((p) => `request ${c.requestIndex}: ${p}`));
          },
        });
        const stats = scheduler.stats();
        scheduler.dispose();
        expect(problems).toEqual([]);
        expect(replay.summaryFailures).toBe(0);
        expect(stats.hits).toBeGreaterThan(0);
        const batch = replay.compactions.filter((c) => c.kind === "summary" || c.kind === "prune");
        expect(replay.syncCompactions).toHaveLength(batch.length);
        expect(replay.syncCompactions.filter((s) => s.hit)).toHaveLength(stats.hits);
        for (const s of replay.syncCompactions) expect(s.ms).toBeGreaterThanOrEqual(0);
        const log = await runtime.store.readStream(replay.sessionId);
        const precompacted = log.filter((e) => e.type === "messages.superseded" && e.data.mode === "precompact");
        expect(precompacted).toHaveLength(stats.hits);
        expect(stats.candidateAgeMs.max).toBeGreaterThanOrEqual(0);
      });
    }
  });
}

describe("replayTranscript with precompact: the per-run figures", () => {
  it("adds hits, misses by reason, sync compaction ms (marked per hit), saved and wasted ms; zeros without", async () => {
    const sessions = [generatedSession(SHAPE, "a")];
    const options = { policies: ["none", "summary"] as const, contextWindow: WINDOW, profile: "anthropic" };
    const on = await replayTranscript(sessions, { ...options, precompact: true });
    const off = await replayTranscript(sessions, options);
    const [noneOn, summaryOn] = on.policies;
    const summaryOff = off.policies[1];
    expect(noneOn).toMatchObject({ precompact: false, precompactHits: 0, syncCompactionMs: [] });
    expect(summaryOn?.precompact).toBe(true);
    expect(summaryOn?.precompactHits).toBeGreaterThan(0);
    expect(summaryOn?.syncCompactionMs.filter((s) => s.hit)).toHaveLength(summaryOn?.precompactHits ?? -1);
    const misses = Object.values(summaryOn?.precompactMisses ?? {}).reduce((a, b) => a + b, 0);
    expect(summaryOn?.syncCompactionMs).toHaveLength((summaryOn?.precompactHits ?? 0) + misses);
    expect(summaryOn?.precompactSavedMs).toEqual(expect.any(Number));
    expect(summaryOn?.precompactWastedMs).toBeGreaterThanOrEqual(0);
    expect(summaryOn?.candidateAgeMs).not.toBeNull();
    expect(summaryOn?.precompactJobs.stored).toBeGreaterThan(0);
    expect(summaryOff).toMatchObject({ precompact: false, precompactHits: 0, precompactMisses: {} });
    expect(summaryOff?.syncCompactionMs.every((s) => !s.hit)).toBe(true);
    expect(summaryOff?.syncCompactionMs).toHaveLength(summaryOff?.summaryEvents ?? -1);
    // The first compaction is due at the same request (later ones may shift: a hit's merged summary differs in size).
    expect(summaryOn?.compactions[0]?.requestIndex).toBe(summaryOff?.compactions[0]?.requestIndex);
  });
});

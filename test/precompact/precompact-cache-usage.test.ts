/**
 * Pre-compaction keeps a summarizer's prompt-cache reads and writes: the background job stores them with
 * its candidate (the candidates table), and a hit that summarizes the delta after it records the two
 * summaries' tokens summed in the compaction's stats; the sum has a cache count only when both summaries
 * reported it (one's reads against both inputs would understate the share). The summarizer is an
 * AiSdkSummarizer on a model reporting Anthropic-style cache usage, or none, call by call.
 */
import { AiSdkSummarizer } from "@palimpsest/ai-sdk";
import { type Palimpsest, PrecompactionScheduler } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CACHED_USAGE,
  cachedSummaryModel,
  type SummaryUsage,
  UNCOUNTED_USAGE,
} from "../ai-sdk/cached-summary-model.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { candidateStore, growTo, thresholds, WINDOW } from "./precompact-fixtures.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`a pre-compaction hit's prompt-cache usage (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    /**
     * A session whose background job's summary reports `job` and whose hit then summarizes the delta,
     * reporting `delta`: the candidate the job stored, and the hit's compaction stats.
     */
    async function hitWith(job: SummaryUsage, delta: SummaryUsage) {
      const scheduler = new PrecompactionScheduler({
        candidates: candidateStore(runtime),
        compaction: { policy: "summary", summarizer: new AiSdkSummarizer({ model: cachedSummaryModel([job, delta]) }) },
        precompact: { debounceMs: 0, keepDelta: false }, // the delta is summarized: two summaries' usage
      });
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const next = await growTo(session, thresholds(session).soft);
      scheduler.onTurnCompleted(session);
      await scheduler.idle();
      const candidate = await candidateStore(runtime).loadCandidate(session.id);
      await growTo(session, thresholds(session).hard, next);
      const outcome = await scheduler.compact(session);
      expect(outcome.precompact).toMatchObject({ type: "hit" });
      if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded") throw new Error("no commit");
      return { candidate, stats: outcome.event.data.stats };
    }

    it("stores the job's cache reads and writes with its candidate, and a hit records them summed with the delta's", async () => {
      const { candidate, stats } = await hitWith(CACHED_USAGE, CACHED_USAGE);
      const { inputTokens, outputTokens, cacheRead, cacheWrite } = CACHED_USAGE;
      expect(candidate).toMatchObject({
        auxTokensIn: inputTokens,
        auxTokensOut: outputTokens,
        auxTokensCacheRead: cacheRead,
        auxTokensCacheWrite: cacheWrite,
      });
      expect(stats).toMatchObject({
        auxTokensIn: 2 * inputTokens,
        auxTokensOut: 2 * outputTokens,
        auxTokensCacheRead: 2 * cacheRead,
        auxTokensCacheWrite: 2 * cacheWrite,
      });
    });

    it("records no cache counts for a hit when only the candidate's or only the delta's summary reported them", async () => {
      for (const [job, delta] of [
        [CACHED_USAGE, UNCOUNTED_USAGE],
        [UNCOUNTED_USAGE, CACHED_USAGE],
      ] as const) {
        const { stats } = await hitWith(job, delta);
        expect(stats).toMatchObject({
          auxTokensIn: CACHED_USAGE.inputTokens + UNCOUNTED_USAGE.inputTokens,
          auxTokensOut: CACHED_USAGE.outputTokens + UNCOUNTED_USAGE.outputTokens,
        });
        expect(stats).not.toHaveProperty("auxTokensCacheRead");
        expect(stats).not.toHaveProperty("auxTokensCacheWrite");
      }
    });
  });
}

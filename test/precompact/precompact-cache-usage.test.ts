/**
 * Pre-compaction keeps a summarizer's prompt-cache reads and writes: the background job stores them with
 * its candidate (the candidates table), and a hit that summarizes the delta after it records the two
 * summaries' tokens summed in the compaction's stats. The summarizer is an AiSdkSummarizer on a model
 * reporting Anthropic-style cache usage for every call.
 */
import { AiSdkSummarizer } from "@palimpsest/ai-sdk";
import { type Palimpsest, PrecompactionScheduler } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CACHED_USAGE, cachedSummaryModel } from "../ai-sdk/cached-summary-model.ts";
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

    it("stores the job's cache reads and writes with its candidate, and a hit records them summed with the delta's", async () => {
      const scheduler = new PrecompactionScheduler({
        candidates: candidateStore(runtime),
        compaction: { policy: "summary", summarizer: new AiSdkSummarizer({ model: cachedSummaryModel() }) },
        precompact: { debounceMs: 0, keepDelta: false }, // the delta is summarized: two summaries' usage
      });
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const next = await growTo(session, thresholds(session).soft);
      scheduler.onTurnCompleted(session);
      await scheduler.idle();
      const { inputTokens, outputTokens, cacheRead, cacheWrite } = CACHED_USAGE;
      expect(await candidateStore(runtime).loadCandidate(session.id)).toMatchObject({
        auxTokensIn: inputTokens,
        auxTokensOut: outputTokens,
        auxTokensCacheRead: cacheRead,
        auxTokensCacheWrite: cacheWrite,
      });

      await growTo(session, thresholds(session).hard, next);
      const outcome = await scheduler.compact(session);
      expect(outcome.precompact).toMatchObject({ type: "hit" });
      if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded") throw new Error("no commit");
      expect(outcome.event.data.stats).toMatchObject({
        auxTokensIn: 2 * inputTokens,
        auxTokensOut: 2 * outputTokens,
        auxTokensCacheRead: 2 * cacheRead,
        auxTokensCacheWrite: 2 * cacheWrite,
      });
    });
  });
}

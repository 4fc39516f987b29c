/**
 * runCompaction's usage: the summarizer's tokens as the SDK's RequestUsage, the prompt cache's reads in
 * the SDK's own field for them (`inputTokensDetails.cached_tokens`, which its tracing sums) and its writes
 * in `cache_write_tokens`, when the summarizer reported them (an AiSdkSummarizer on a model reporting
 * Anthropic-style cache usage); no details when it did not.
 */
import type { AgentInputItem } from "@openai/agents-core";
import { AiSdkSummarizer } from "@palimpsest/ai-sdk";
import type { Summarizer } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { CACHED_USAGE, cachedSummaryModel } from "../ai-sdk/cached-summary-model.ts";
import { databases, engines } from "./engines.ts";

/** Twelve exchanges of some length: enough for a forced summary in an 8,000-token window to shrink the view. */
const ITEMS: AgentInputItem[] = Array.from({ length: 12 }, (_, i): AgentInputItem[] => [
  { type: "message", role: "user", content: `step ${i}: run the build and list ${"every failing test ".repeat(40)}` },
  {
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: `step ${i}: ${"the build passed again ".repeat(40)}` }],
  },
]).flat();

/** A summarizer reporting input and output tokens, and nothing of a cache. */
const plainUsage: Summarizer = {
  model: "plain",
  promptVersion: "v1",
  summarize: async () => ({ text: "Goal: build. Done: it passed.", inputTokens: 900, outputTokens: 30 }),
};

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`runCompaction's usage (${engine.name})`, () => {
    const fresh = databases(engine);

    it("carries the summary's cache reads in inputTokensDetails.cached_tokens, and its writes", async () => {
      const summarizer = new AiSdkSummarizer({ model: cachedSummaryModel() });
      const ours = await (await fresh()).open({ contextWindow: 8_000, compaction: { policy: "summary", summarizer } });
      await ours.addItems(ITEMS);
      const result = await ours.runCompaction({ force: true });
      const { inputTokens, outputTokens, cacheRead, cacheWrite } = CACHED_USAGE;
      expect(result?.usage).toMatchObject({
        inputTokens,
        outputTokens,
        totalTokens: inputTokens + outputTokens,
        inputTokensDetails: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
      });
    });

    it("has no cache details when the summarizer reported none", async () => {
      const ours = await (await fresh()).open({
        contextWindow: 8_000,
        compaction: { policy: "summary", summarizer: plainUsage },
      });
      await ours.addItems(ITEMS);
      const result = await ours.runCompaction({ force: true });
      expect(result?.usage).toMatchObject({ inputTokens: 900, outputTokens: 30 });
      expect(result?.usage.inputTokensDetails).toEqual({});
    });
  });
}

import { MockLanguageModelV4 } from "ai/test";
import { sectionedAnswer } from "../../packages/summarizers/test/support/sample.ts";

/** What the model reports for each summary: 5,000 input tokens, 4,800 read from the cache, 100 written to it. */
export const CACHED_USAGE = { inputTokens: 5_000, cacheRead: 4_800, cacheWrite: 100, outputTokens: 60 };

/**
 * An AI SDK model for an AiSdkSummarizer: answers every call with a summary and the usage (CACHED_USAGE)
 * of a prompt the provider read mostly from its cache, as the AI SDK reports it (`inputTokens` details).
 */
export function cachedSummaryModel(): MockLanguageModelV4 {
  const { inputTokens, cacheRead, cacheWrite, outputTokens } = CACHED_USAGE;
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text: sectionedAnswer("- Checked the build.") }],
      finishReason: { unified: "stop", raw: "end_turn" },
      usage: {
        inputTokens: { total: inputTokens, noCache: inputTokens - cacheRead - cacheWrite, cacheRead, cacheWrite },
        outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
      },
      warnings: [],
    }),
  });
}

import { MockLanguageModelV4 } from "ai/test";
import { sectionedAnswer } from "../../packages/summarizers/test/support/sample.ts";

/** A summary's usage as a model reports it; a cache figure left out is one its provider did not report. */
export interface SummaryUsage {
  inputTokens: number;
  cacheRead?: number;
  cacheWrite?: number;
  outputTokens: number;
}

/** What the model reports for each summary: 5,000 input tokens, 4,800 read from the cache, 100 written to it. */
export const CACHED_USAGE = { inputTokens: 5_000, cacheRead: 4_800, cacheWrite: 100, outputTokens: 60 };

/** A summary whose provider reported no prompt-cache figures: 100,000 input tokens, 400 output. */
export const UNCOUNTED_USAGE: SummaryUsage = { inputTokens: 100_000, outputTokens: 400 };

/**
 * An AI SDK model for an AiSdkSummarizer: answers each call with a summary and the usage of its prompt, as
 * the AI SDK reports it (`inputTokens` details): the nth call `usages[n]`, the last one from then on
 * (CACHED_USAGE, a prompt the provider read mostly from its cache, for every call by default).
 */
export function cachedSummaryModel(
  usages: readonly SummaryUsage[] = [CACHED_USAGE],
  modelId = "mock-model-id",
): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    modelId,
    doGenerate: async () => {
      const usage = usages[Math.min(calls, usages.length - 1)] ?? CACHED_USAGE;
      calls += 1;
      const { inputTokens, cacheRead, cacheWrite, outputTokens } = usage;
      const counted = cacheRead !== undefined || cacheWrite !== undefined;
      return {
        content: [{ type: "text", text: sectionedAnswer("- Checked the build.") }],
        finishReason: { unified: "stop", raw: "end_turn" },
        usage: {
          inputTokens: {
            total: inputTokens,
            noCache: counted ? inputTokens - (cacheRead ?? 0) - (cacheWrite ?? 0) : undefined,
            cacheRead,
            cacheWrite,
          },
          outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

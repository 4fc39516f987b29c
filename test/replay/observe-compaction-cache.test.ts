/**
 * A replay prices a summarizer's input by what it recorded: observeCompaction takes the cache's reads and
 * writes from the compaction's stats when the summarizer reported them (an AiSdkSummarizer on a model
 * reporting cache usage), and none from the offline summarizer, whose input is then priced in full, nor
 * from a summarizer that reported cache counts but no input count (the input is then the replay's estimate).
 */
import { AiSdkSummarizer } from "@palimpsest/ai-sdk";
import { OfflineSummarizer, type Summarizer, type SummaryRequest, type SummaryResult } from "@palimpsest/core";
import { compact, openPalimpsest } from "@palimpsest/runtime";
import { describe, expect, it } from "vitest";
import { observeCompaction } from "../../packages/eval/src/replay/observe-compaction.ts";
import { CACHED_USAGE, cachedSummaryModel } from "../ai-sdk/cached-summary-model.ts";
import { turn } from "../precompact/precompact-fixtures.ts";

/** The offline summarizer, reporting cache reads and writes beside no input count. */
class CacheCountsOnly extends OfflineSummarizer {
  override async summarize(request: SummaryRequest): Promise<SummaryResult> {
    return { ...(await super.summarize(request)), cachedInputTokens: 4_800, cacheWriteTokens: 100 };
  }
}

/** A forced summary of six turns by `summarizer`, observed as a replay observes it. */
async function observed(summarizer: Summarizer) {
  const runtime = await openPalimpsest({ url: ":memory:" });
  try {
    const session = await runtime.startSession({ contextWindow: 64_000 });
    for (let n = 0; n < 6; n++) await turn(session, n);
    const viewBefore = [...session.state.live];
    const outcome = await compact(session, { policy: "summary", summarizer, force: true });
    if (outcome.status !== "compacted") throw new Error(`not compacted: ${outcome.status}`);
    return observeCompaction(outcome, viewBefore, 0);
  } finally {
    await runtime.close();
  }
}

describe("observeCompaction and the summarizer's prompt cache", () => {
  it("takes the cache's reads and writes the summarizer reported", async () => {
    expect(await observed(new AiSdkSummarizer({ model: cachedSummaryModel() }))).toMatchObject({
      auxInputTokens: CACHED_USAGE.inputTokens,
      auxCacheReadTokens: CACHED_USAGE.cacheRead,
      auxCacheWriteTokens: CACHED_USAGE.cacheWrite,
    });
  });

  it("has none when the summarizer reported none (the offline one)", async () => {
    const plain = await observed(new OfflineSummarizer());
    expect(plain.auxInputTokens).toBeGreaterThan(0);
    expect(plain).not.toHaveProperty("auxCacheReadTokens");
    expect(plain).not.toHaveProperty("auxCacheWriteTokens");
  });

  it("has none when the summarizer reported cache counts but not its input, which the replay then estimates", async () => {
    const estimated = await observed(new CacheCountsOnly());
    expect(estimated.auxInputTokens).toBeGreaterThan(0);
    expect(estimated).not.toHaveProperty("auxCacheReadTokens");
    expect(estimated).not.toHaveProperty("auxCacheWriteTokens");
  });
});

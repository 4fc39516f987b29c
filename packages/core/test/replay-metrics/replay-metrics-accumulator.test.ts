import { type CacheEstimate, type CompactionObservation, ReplayMetricsAccumulator } from "@palimpsest/core";
import { cacheCost } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

const PRICES = { input: 1, cachedRead: 0.1, cacheWrite: 1.25, output: 5 };

/** A hand-built estimate (the metrics only sum what the cache model said). */
function estimate(
  promptTokens: number,
  cachedTokens: number,
  cacheWriteTokens: number,
  outputTokens: number,
  cacheBreak = false,
): CacheEstimate {
  const counts = { cachedTokens, uncachedTokens: promptTokens - cachedTokens, cacheWriteTokens, outputTokens };
  return {
    promptTokens,
    ...counts,
    cacheBreak,
    expired: false,
    earliestChangedIndex: null,
    // The accumulator bills each request at its own cost (its model's prices).
    cost: cacheCost(counts, PRICES),
  };
}

function compaction(
  kind: "prune" | "summary",
  requestIndex: number,
  reclaimed: number,
  earliestChangedIndex: number,
  aux: [number, number] = [0, 0],
): CompactionObservation {
  return {
    kind,
    tokensBefore: 2000,
    tokensAfter: 2000 - reclaimed,
    auxInputTokens: aux[0],
    auxOutputTokens: aux[1],
    earliestChangedIndex,
    requestIndex,
  };
}

/** What a summary of 1,000 tokens in and 100 out costs with the cache figures `cache`. */
function priced(cache: Partial<CompactionObservation>): number {
  const acc = new ReplayMetricsAccumulator("summary", PRICES);
  acc.recordCompaction({ ...compaction("summary", 0, 600, 2, [1_000, 100]), ...cache });
  return acc.metrics().estimatedCost;
}

describe("ReplayMetricsAccumulator", () => {
  it("computes every metric of a hand-built replay", () => {
    const acc = new ReplayMetricsAccumulator("prune-first", PRICES);
    acc.recordRequest(estimate(1000, 0, 1000, 100));
    acc.recordCompaction(compaction("prune", 0, 300, 5));
    acc.recordRequest(estimate(1200, 1000, 200, 50));
    acc.recordCompaction(compaction("prune", 1, 450, 3));
    acc.recordRequest(estimate(800, 300, 500, 20, true));
    acc.recordRequest(estimate(900, 800, 0, 30));
    acc.recordCompaction(compaction("summary", 3, 600, 2, [900, 150]));

    const m = acc.metrics();
    expect(m).toMatchObject({
      policy: "prune-first",
      turns: 4,
      compressionEvents: 3,
      pruneEvents: 2,
      summaryEvents: 1,
      compressionEventsPer100Turns: 75, // 3 / 4 × 100
      avgTurnsBetweenCompressions: 1.5, // gaps 1 and 2
      auxSummaryCalls: 1,
      tokensReclaimed: 1350, // 300 + 450 + 600
      avgTokensReclaimedPerEvent: 450, // 1350 / 3
      totalPromptPlusAuxTokens: 4950, // 1000 + 1200 + 800 + 900 + 900 + 150
      auxInputTokens: 900,
      auxOutputTokens: 150,
      earliestChangedIndex: [5, 3, 2],
      pruneOnlyToFullRatio: 2,
      cacheBreaks: 1,
      cachedTokens: 2100,
      uncachedTokens: 1800,
      cacheWriteTokens: 1700,
      outputTokens: 200,
    });
    // plain input 100 × $1 + reads 2,100 × $0.10 + writes 1,700 × $1.25 + output 200 × $5
    // + summarizer 900 × $1 + 150 × $5 = 100 + 210 + 2,125 + 1,000 + 1,650 = 5,085 per million
    expect(m.estimatedCost).toBeCloseTo(0.005085, 12);
  });

  it("bills the summarizer's input its provider reported read from or written to the cache at the cache's prices", () => {
    // No cache figures (the offline summarizer's): 1,000 × $1 + 100 × $5, as before.
    expect(priced({})).toBe((1_000 * 1 + 100 * 5) / 1_000_000);
    // 900 read at $0.10, 50 written at $1.25, the other 50 at $1; output 100 × $5 = 90 + 62.5 + 50 + 500.
    expect(priced({ auxCacheReadTokens: 900, auxCacheWriteTokens: 50 })).toBeCloseTo(702.5 / 1_000_000, 12);
  });

  it("holds the summarizer's reported cache reads and writes to its input, so no input is billed below zero", () => {
    // 1,500 read of 1,000 in: the 1,000 read at $0.10, nothing written or at $1; output 500.
    expect(priced({ auxCacheReadTokens: 1_500, auxCacheWriteTokens: 200 })).toBeCloseTo(600 / 1_000_000, 12);
    // 900 read and 200 written of 1,000: 900 × $0.10, the other 100 written at $1.25; output 500.
    expect(priced({ auxCacheReadTokens: 900, auxCacheWriteTokens: 200 })).toBeCloseTo(715 / 1_000_000, 12);
  });

  it("uses null for averages and ratios with nothing to divide", () => {
    const empty = new ReplayMetricsAccumulator("none", PRICES).metrics();
    expect(empty).toMatchObject({
      turns: 0,
      compressionEventsPer100Turns: 0,
      avgTurnsBetweenCompressions: null,
      tokensReclaimed: 0,
      avgTokensReclaimedPerEvent: null,
      pruneOnlyToFullRatio: null,
      earliestChangedIndex: [],
      estimatedCost: 0,
    });
    const pruneOnly = new ReplayMetricsAccumulator("prune", PRICES);
    pruneOnly.recordRequest(estimate(10, 0, 0, 0));
    pruneOnly.recordCompaction(compaction("prune", 0, 5, 1));
    expect(pruneOnly.metrics()).toMatchObject({
      pruneOnlyToFullRatio: null,
      avgTurnsBetweenCompressions: null,
      avgTokensReclaimedPerEvent: 5,
      compressionEventsPer100Turns: 100,
    });
  });
});

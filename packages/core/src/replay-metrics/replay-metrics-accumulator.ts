import { type CacheEstimate, type CachePrices, cacheCost } from "../cache-model/index.ts";
import type { CompactionObservation } from "./compaction-observation.ts";
import type { ReplayMetrics } from "./replay-metrics.ts";

/** Collects one policy run of a replay (each provider request's cache estimate, each compaction) into metrics. */
export class ReplayMetricsAccumulator {
  private readonly compactions: CompactionObservation[] = [];
  private auxCost = 0;
  private turns = 0;
  private promptTokens = 0;
  private cacheBreaks = 0;
  private requestCost = 0;
  private readonly counts = { cachedTokens: 0, uncachedTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };

  /**
   * Each request is billed at its own estimate's cost (its model's prices); the summarizer's calls at
   * `summarizerPrices` input and output, unless recorded as requests of their own (recordCompaction).
   */
  constructor(
    private readonly policy: string,
    private readonly summarizerPrices: CachePrices,
  ) {}

  /** Records one provider request by its cache estimate. */
  recordRequest(estimate: CacheEstimate): void {
    this.turns += 1;
    this.promptTokens += estimate.promptTokens;
    if (estimate.cacheBreak) this.cacheBreaks += 1;
    this.counts.cachedTokens += estimate.cachedTokens;
    this.counts.uncachedTokens += estimate.uncachedTokens;
    this.counts.cacheWriteTokens += estimate.cacheWriteTokens;
    this.counts.outputTokens += estimate.outputTokens;
    this.requestCost += estimate.cost;
  }

  /**
   * Records one committed compaction. Its summarizer call is billed at `summarizerPrices` (the input its
   * provider reported read from or written to its prompt cache at the cache's prices, those counts held to
   * the input, the rest at the input price), or, given its `summarizerRequest` (a summarizer that sent the
   * agent's own request: Summarizer.readsConversation), at that request's estimate, whose prompt and output
   * are then the call's tokens.
   */
  recordCompaction(compaction: CompactionObservation, summarizerRequest?: CacheEstimate): void {
    if (summarizerRequest === undefined) {
      this.compactions.push(compaction);
      const { auxInputTokens, auxOutputTokens, auxCacheReadTokens = 0, auxCacheWriteTokens = 0 } = compaction;
      // Reads and writes are shares of the input: never more than it, so the rest never goes negative.
      const cachedTokens = Math.min(auxCacheReadTokens, auxInputTokens);
      const counts = {
        cachedTokens,
        uncachedTokens: auxInputTokens - cachedTokens,
        cacheWriteTokens: Math.min(auxCacheWriteTokens, auxInputTokens - cachedTokens),
        outputTokens: auxOutputTokens,
      };
      this.auxCost += cacheCost(counts, this.summarizerPrices);
      return;
    }
    const { promptTokens, outputTokens, cost } = summarizerRequest;
    this.compactions.push({ ...compaction, auxInputTokens: promptTokens, auxOutputTokens: outputTokens });
    this.auxCost += cost;
  }

  /** The metrics of everything recorded so far. */
  metrics(): ReplayMetrics {
    const events = this.compactions;
    const summaryEvents = events.filter((c) => c.kind === "summary").length;
    const pruneEvents = events.length - summaryEvents;
    const auxInputTokens = sum(events.map((c) => c.auxInputTokens));
    const auxOutputTokens = sum(events.map((c) => c.auxOutputTokens));
    const tokensReclaimed = sum(events.map((c) => c.tokensBefore - c.tokensAfter));
    const gaps = events.slice(1).map((c, i) => c.requestIndex - (events[i]?.requestIndex ?? 0));
    return {
      policy: this.policy,
      turns: this.turns,
      compressionEvents: events.length,
      pruneEvents,
      summaryEvents,
      compressionEventsPer100Turns: this.turns === 0 ? 0 : (events.length * 100) / this.turns,
      avgTurnsBetweenCompressions: mean(gaps),
      auxSummaryCalls: summaryEvents,
      tokensReclaimed,
      avgTokensReclaimedPerEvent: events.length === 0 ? null : tokensReclaimed / events.length,
      totalPromptPlusAuxTokens: this.promptTokens + auxInputTokens + auxOutputTokens,
      auxInputTokens,
      auxOutputTokens,
      earliestChangedIndex: events.map((c) => c.earliestChangedIndex),
      pruneOnlyToFullRatio: summaryEvents === 0 ? null : pruneEvents / summaryEvents,
      cacheBreaks: this.cacheBreaks,
      ...this.counts,
      estimatedCost: this.requestCost + this.auxCost,
    };
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : sum(values) / values.length;
}

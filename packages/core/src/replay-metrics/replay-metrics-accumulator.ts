import type { CacheEstimate, CachePrices } from "../cache-model/index.ts";
import type { CompactionObservation } from "./compaction-observation.ts";
import type { ReplayMetrics } from "./replay-metrics.ts";

/** Collects one policy run of a replay (each provider request's cache estimate, each compaction) into metrics. */
export class ReplayMetricsAccumulator {
  private readonly compactions: CompactionObservation[] = [];
  private turns = 0;
  private promptTokens = 0;
  private cacheBreaks = 0;
  private requestCost = 0;
  private readonly counts = { cachedTokens: 0, uncachedTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };

  /**
   * Each request is billed at its own estimate's cost (its model's prices); the summarizer's calls at
   * `summarizerPrices` input and output.
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

  /** Records one committed compaction. */
  recordCompaction(compaction: CompactionObservation): void {
    this.compactions.push(compaction);
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
      estimatedCost:
        this.requestCost +
        (auxInputTokens * this.summarizerPrices.input + auxOutputTokens * this.summarizerPrices.output) / 1_000_000,
    };
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : sum(values) / values.length;
}

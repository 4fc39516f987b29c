/**
 * What one policy run over a replayed session cost. Averages are null when they have nothing to average;
 * `pruneOnlyToFullRatio` is null when there were no full summaries (count prunes with `pruneEvents`).
 */
export interface ReplayMetrics {
  policy: string;
  /** Provider requests replayed. */
  turns: number;
  compressionEvents: number;
  pruneEvents: number;
  summaryEvents: number;
  /** Compactions per 100 requests (0 for an empty replay). */
  compressionEventsPer100Turns: number;
  /** Mean request-index gap between consecutive compactions; null with fewer than two. */
  avgTurnsBetweenCompressions: number | null;
  /** Summarizer calls (one per summary compaction). */
  auxSummaryCalls: number;
  /** Sum of tokensBefore − tokensAfter over compactions (what every report of the run shows as tokens reclaimed). */
  tokensReclaimed: number;
  /** tokensReclaimed per compaction; null with none. */
  avgTokensReclaimedPerEvent: number | null;
  /** Prompt tokens of every request plus summarizer input and output tokens. */
  totalPromptPlusAuxTokens: number;
  auxInputTokens: number;
  auxOutputTokens: number;
  /** The earliest changed prompt index of each compaction, in order. */
  earliestChangedIndex: number[];
  /** Prune-only events per full-summary event; null when there were no summaries. */
  pruneOnlyToFullRatio: number | null;
  cacheBreaks: number;
  cachedTokens: number;
  uncachedTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** USD: every request at its estimate's cost (its model's prices), and summarizer calls at the summarizer's input/output prices. */
  estimatedCost: number;
}

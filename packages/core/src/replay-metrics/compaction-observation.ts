import type { CompactionPlan } from "../compaction/policy-types.ts";

/** One compaction a replayed policy committed: what it cost and where it changed the prompt. */
export interface CompactionObservation {
  /** The plan's kind: `prune` needs no summarizer; `summary` makes one auxiliary summarizer call. */
  kind: Exclude<CompactionPlan["kind"], "none">;
  tokensBefore: number;
  tokensAfter: number;
  /** Summarizer tokens read and written (0 for a prune). */
  auxInputTokens: number;
  auxOutputTokens: number;
  /** Of auxInputTokens, those the summarizer's provider read from its prompt cache, when it reported them. */
  auxCacheReadTokens?: number;
  /** Of auxInputTokens, those it wrote to its prompt cache, when it reported them. */
  auxCacheWriteTokens?: number;
  /** First prompt message index the compaction changed: the cache is lost from here on. */
  earliestChangedIndex: number;
  /** Index of the provider request after which the compaction ran (0-based, in replay order). */
  requestIndex: number;
}

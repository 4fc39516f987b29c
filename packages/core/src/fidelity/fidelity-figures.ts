import type { PerKind } from "./fidelity-kinds.ts";

/** What the prompt of one request still held of what the conversation had held so far (0–1; null: none held). */
export interface RequestRecall {
  /** The mean of the kinds' recalls that have items (1 when no kind has any). */
  recall: number;
  byKind: PerKind<number | null>;
}

/**
 * What one compaction kept of what it removed. `removed` counts the distinct items of the messages it took
 * out that no surviving message still held; `kept` those of them its replacements hold.
 */
export interface CompactionFidelity {
  removed: PerKind<number>;
  kept: PerKind<number>;
  /** Tokens of the messages it took out, and of what it put in their place. */
  removedTokens: number;
  replacementTokens: number;
}

/** Fidelity of one conversation (or several, pooled) under one policy. */
export interface FidelitySummary {
  /** Requests averaged over. */
  requests: number;
  /** Mean over requests of each request's recall (1 with no requests: nothing was lost). */
  meanRecall: number;
  /** Per kind, the mean over the requests at which the conversation held items of that kind (null: never). */
  meanRecallByKind: PerKind<number | null>;
  /** Distinct items the conversations held by their end. */
  held: PerKind<number>;
  /** Compactions observed, and their removed and kept items and tokens summed. */
  compactions: number;
  removed: PerKind<number>;
  kept: PerKind<number>;
  /** kept / removed per kind over all compactions; null when none removed any. */
  keptRatio: PerKind<number | null>;
  removedTokens: number;
  replacementTokens: number;
  /** replacementTokens / removedTokens; null when nothing was removed. */
  sizeRatio: number | null;
}

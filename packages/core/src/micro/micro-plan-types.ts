import type { LiveEntry, MicroFailures } from "../session/session-state.ts";
import type { MicroSettings } from "./micro-settings.ts";

/** What the micro planner reads: the live view, the failure history, the settings and the turn count. */
export interface MicroInput {
  view: readonly LiveEntry[];
  /** Batch compactions committed (summary, prune, precompact): the head shrinks after the first, as in batch policies. */
  batchCompactions: number;
  /** Tokens the protected tail holds (the batch policies' tail budget for the session's window and profile). */
  tailTokens: number;
  failures: MicroFailures;
  settings: MicroSettings;
  /** The session's own switch (`SessionStarted.settings.microCompact`); false turns micro-compaction off. */
  sessionEnabled?: boolean;
  turnsCompleted: number;
  /** How many summaries and markers are live (the state's `liveSummaries`): lets the planner stop scanning after the last. */
  liveSummaries?: number;
}

/** Fold the oldest un-absorbed exchange and the previous marker into one new rolling-summary marker. */
export interface MicroAbsorbPlan {
  kind: "absorb";
  /** Ids to supersede: the previous marker (if any), then the exchange. */
  targets: string[];
  /** The assistant message and its tool results, in view order. */
  exchange: LiveEntry[];
  /** The live marker this pass replaces. */
  marker?: LiveEntry;
  /** The marker's summary without its note, which the new summary must update rather than nest. */
  previousSummary?: string;
  /** Where the new marker goes: the exchange's first message, just before the first un-absorbed one. */
  at: string;
  /** Poison exchanges passed over on the way (left verbatim), each as its ids. */
  passedOver: string[][];
  maxSummaryTokens: number;
  reason: string;
}

/** Re-summarize the marker's summary alone, in one shot, to bring it back under the limit. */
export interface MicroDefragPlan {
  kind: "defrag";
  marker: LiveEntry;
  /** The marker's summary without its note. */
  summary: string;
  maxSummaryTokens: number;
  reason: string;
}

/** The only candidates left are poison exchanges (out of attempts): they stay verbatim, nothing is written. */
export interface MicroSkipPlan {
  kind: "skip";
  /** Ids of the newest exchange passed over. */
  exchange: string[];
  reason: string;
}

/** Nothing to do, and why (off, not this turn, nothing outside the protected windows). */
export interface MicroNoPlan {
  kind: "none";
  reason: string;
}

/** What a micro pass decides; absorb and defrag each commit exactly one supersede event. */
export type MicroPlan = MicroAbsorbPlan | MicroDefragPlan | MicroSkipPlan | MicroNoPlan;

import type { Replacement } from "../events/event-data.ts";
import type { Message } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import type { CompactionHistory } from "./anti-thrash.ts";
import type { ProviderProfile } from "./provider-profile.ts";

/** What a policy sees: the live view with its token counts, the session's window and profile. */
export interface PolicyInput {
  view: readonly LiveEntry[];
  viewVersion: number;
  liveTokens: number;
  /** The model's context window and the tokens reserved for its answer. */
  contextWindow: number;
  maxOutputTokens: number;
  profile: ProviderProfile;
  /** Compactions already committed in this session (the head shrinks after the first). */
  compactions: number;
  /** Run even below the threshold (an explicit `compact --force`). */
  force: boolean;
  /** Recent compactions and summary failures, for the anti-thrash check (absent: never back off). */
  history?: CompactionHistory;
  /** When the next request goes out (epoch ms); with `previousRequestMs`, tells an idle gap past the cache TTL. */
  nowMs?: number;
  /** When the previous request went out (epoch ms); absent: the cache is never taken for cold. */
  previousRequestMs?: number;
}

/** A summary compaction still to be written: which messages, which role, what it continues. */
export interface SummaryPlan {
  kind: "summary";
  /**
   * Ids of the live messages to supersede, in view order: the middle span, never splitting a tool pair,
   * less the last user message and last reply pinned inside it (the summary, at the first target, precedes them).
   */
  targets: string[];
  /** The messages the summarizer reads (the targets, earlier summary included where there is one). */
  input: LiveEntry[];
  /** Text of the summary these targets include, which the new one must update rather than nest. */
  previousSummary?: string;
  /** How many of `input` come before the first earlier summary (see SummaryRequest.previousSummaryAt). */
  previousSummaryAt?: number;
  /** How many earlier summaries `previousSummary` joins (see SummaryRequest.previousSummaries). */
  previousSummaries?: number;
  /** The role the summary message takes so that roles stay valid around it. */
  role: "user" | "assistant";
  /** Token budget for the summary. */
  maxSummaryTokens: number;
  tokensBefore: number;
  reason: string;
}

/** A prune that needs no summarizer: stubs (with `at`) replacing old tool outputs. */
export interface PrunePlan {
  kind: "prune";
  targets: string[];
  replacements: Replacement[];
  tokensBefore: number;
  tokensAfter: number;
  reason: string;
}

/** Nothing to do, and why (under threshold, backing off, nothing compactable). */
export interface NoPlan {
  kind: "none";
  reason: string;
}

/** What a policy decides. The runtime writes the summary (if any) and commits exactly one supersede event. */
export type CompactionPlan = SummaryPlan | PrunePlan | NoPlan;

/** A compaction policy: pure, from the view and its configuration to a plan. */
export interface CompactionPolicy {
  readonly name: string;
  plan(input: PolicyInput): CompactionPlan;
}

/** Counts the tokens a message costs (the runtime passes the session's TokenCounter): policies never tokenize themselves. */
export type CountTokens = (message: Message) => number;

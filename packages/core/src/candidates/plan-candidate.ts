import type { NoPlan, PolicyInput } from "../compaction/policy-types.ts";
import { isSummaryEntry, selectSpan } from "../compaction/span-selection.ts";
import { stripSummaryNote } from "../compaction/summary-note.ts";
import { compactionThreshold, tailBudget } from "../compaction/threshold.ts";
import { messageText } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import type { CandidateKey } from "./candidate.ts";
import { prefixHash, systemPromptHash } from "./prefix-hash.ts";
import { stablePrefixEnd } from "./stable-prefix.ts";

/** What the background planner reads: the view and window as a policy sees them, plus what keys a candidate. */
export interface CandidateInput
  extends Pick<
    PolicyInput,
    "view" | "viewVersion" | "liveTokens" | "contextWindow" | "maxOutputTokens" | "profile" | "compactions"
  > {
  sessionId: string;
  /** Seq of the last completed turn: entries introduced after it may still be retried, undone or steered. */
  stableThroughSeq: number;
  /** Share of the compaction threshold above which a candidate is worth writing (e.g. 0.65). */
  softRatio: number;
  summarizer: { model: string; promptVersion: string };
  /** The system prompt, when the agent keeps it outside the transcript. */
  systemPrompt?: string;
}

/** A candidate still to be summarized: its key, the prefix it replaces, and what the summarizer reads. */
export interface CandidatePlan {
  kind: "candidate";
  key: CandidateKey;
  /** Ids of the stable prefix, in view order (earlier summaries included). */
  targets: string[];
  /** The prefix's messages the summarizer reads (earlier summaries excluded: see previousSummary). */
  input: LiveEntry[];
  /** Text of the earlier summaries inside the prefix, which the new one updates rather than nests. */
  previousSummary?: string;
  /** How many of `input` come before the first earlier summary (see SummaryRequest.previousSummaryAt). */
  previousSummaryAt?: number;
  /** How many earlier summaries `previousSummary` joins (see SummaryRequest.previousSummaries). */
  previousSummaries?: number;
  maxSummaryTokens: number;
  prefixTokens: number;
  basisViewVersion: number;
  reason: string;
}

/** The soft threshold: `softRatio` of the live tokens at which a batch compaction triggers. */
export function softThreshold(
  input: Pick<CandidateInput, "contextWindow" | "maxOutputTokens" | "profile" | "softRatio">,
): number {
  const hard = compactionThreshold(input.contextWindow, input.maxOutputTokens, input.profile.threshold);
  return Math.floor(input.softRatio * hard);
}

/**
 * Plans a background candidate: above the soft threshold, the stable prefix of the middle (see
 * stablePrefixEnd), over the same head, tail and pinned messages a batch summary would use, so the
 * candidate's targets are the start of the targets a compaction of this view would replace.
 */
export function planCandidate(input: CandidateInput): CandidatePlan | NoPlan {
  const soft = softThreshold(input);
  if (input.liveTokens < soft) {
    return { kind: "none", reason: `${input.liveTokens} live tokens, under the soft threshold of ${soft}` };
  }
  const { view } = input;
  const span = selectSpan(view, tailBudget(input.contextWindow, input.profile.tail), input.compactions);
  const end = stablePrefixEnd(view, span, input.stableThroughSeq);
  // The pinned messages stay in place, as in a compaction's span; the key still covers the view up to `end`.
  const prefix = view.slice(span.headEnd, end).filter((_, i) => !span.pinned.has(span.headEnd + i));
  const fresh = prefix.filter((e) => !isSummaryEntry(e));
  const last = view[end - 1];
  if (last === undefined || end <= span.headEnd || fresh.length === 0)
    return { kind: "none", reason: "no stable prefix to summarize yet" };
  const prefixTokens = prefix.reduce((n, e) => n + e.tokens, 0);
  const budget = input.profile.summary;
  const plan: CandidatePlan = {
    kind: "candidate",
    key: {
      sessionId: input.sessionId,
      lastMessageId: last.message.id,
      prefixHash: prefixHash(view.slice(0, end)),
      systemPromptHash: systemPromptHash(view, input.systemPrompt),
      summarizerModel: input.summarizer.model,
      promptVersion: input.summarizer.promptVersion,
    },
    targets: prefix.map((e) => e.message.id),
    input: fresh,
    maxSummaryTokens: Math.min(budget.maxTokens, Math.max(budget.minTokens, Math.floor(budget.ratio * prefixTokens))),
    prefixTokens,
    basisViewVersion: input.viewVersion,
    reason: `${input.liveTokens} live tokens reached the soft threshold of ${soft}: a stable prefix of ${prefix.length} messages (${prefixTokens} tokens)`,
  };
  const earlier = prefix.filter(isSummaryEntry);
  if (earlier.length > 0) {
    plan.previousSummary = earlier.map((e) => stripSummaryNote(messageText(e.message))).join("\n\n");
    plan.previousSummaryAt = prefix.findIndex(isSummaryEntry);
    plan.previousSummaries = earlier.length;
  }
  return plan;
}

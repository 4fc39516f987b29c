import type { LiveEntry } from "../session/session-state.ts";
import type { CompactionShape } from "./compaction-cost.ts";
import type { PolicyInput, SummaryPlan } from "./policy-types.ts";
import { isSummaryEntry, leadingSystemTokens } from "./span-selection.ts";
import { planSummary } from "./summary-plan.ts";
import { compactionThreshold, tailBudget } from "./threshold.ts";

/** A summary plan the cost-optimal policy may choose, with the tail budget it was planned with and its shape. */
export interface PlannedCandidate {
  plan: SummaryPlan;
  tailBudget: number;
  /** It keeps the earlier summaries as they are (the new summary follows them) rather than updating them. */
  keepsSummaries: boolean;
  shape: CompactionShape;
}

/** Shares of the profile's tail budget tried by default: the baseline's tail, a half, a quarter and a tenth of it. */
export const DEFAULT_TAIL_SHARES: readonly number[] = [1, 0.5, 0.25, 0.1];

/** What the earlier summaries and the new one may hold together when kept side by side: twice the profile's cap. */
const KEPT_SUMMARIES_FACTOR = 2;

/**
 * The summary plans of the view with protected tails of `shares` × the profile's tail budget, each planned
 * by planSummary (so every one keeps the head, whole tool pairs and the pinned last turn), less duplicates.
 * Where the view holds summaries, each tail is planned twice: updating them (the new summary folds them in)
 * and keeping them (the new summary follows them, so neither they nor the prompt before them are read or
 * written again). Keeping is offered while what stays before the new summary and the summary itself fit
 * twice the profile's summary cap; past it, only an update can shrink them.
 */
export function costCandidates(
  input: PolicyInput,
  shares: readonly number[] = DEFAULT_TAIL_SHARES,
): PlannedCandidate[] {
  const full = tailBudget(input.contextWindow, input.profile.tail);
  const hasSummaries = input.view.some(isSummaryEntry);
  const seen = new Set<string>();
  const candidates: PlannedCandidate[] = [];
  for (const share of shares) {
    const budget = Math.max(0, Math.floor(share * full));
    const tail = { minTokens: budget, maxTokens: budget, ratio: 0, capRatio: 1 };
    const tailed = { ...input, profile: { ...input.profile, tail } };
    for (const keepsSummaries of hasSummaries ? [false, true] : [false]) {
      const planned = planSummary(tailed, "cost-optimal", { keepSummaries: keepsSummaries });
      if (planned.kind !== "summary") continue;
      // Targets are a run of the view less the pinned last turn, so count, first and last name the span.
      const key = `${planned.targets.length}:${planned.targets[0]}:${planned.targets.at(-1)}`;
      if (seen.has(key)) continue;
      const plannedShape = shapeOf(input.view, planned, input.liveTokens);
      const room = keepsSummaries ? planned.maxSummaryTokens : updateBudget(input, planned, plannedShape);
      const plan = { ...planned, maxSummaryTokens: room };
      const shape = { ...plannedShape, summaryTokens: room };
      if (keepsSummaries && keptTokens(shape) + plan.maxSummaryTokens > keptCap(input)) continue;
      seen.add(key);
      candidates.push({ plan, tailBudget: budget, keepsSummaries, shape });
    }
  }
  return candidates;
}

/** Tokens before the plan's first target other than the leading system messages: what a kept chain holds. */
function keptTokens(shape: CompactionShape): number {
  return shape.headTokens - shape.systemTokens;
}

function keptCap(input: PolicyInput): number {
  return KEPT_SUMMARIES_FACTOR * input.profile.summary.maxTokens;
}

/** An updated summary's room is at most this share of the threshold (a small window's compactions stay apart). */
const UPDATE_SHARE_OF_THRESHOLD = 0.25;

/**
 * The summary's budget when it updates an earlier one: room for what the earlier summary held plus the
 * profile's share of the fresh span, within the profile's cap and a quarter of the threshold, so compacting
 * more often than the baseline does not squeeze out what earlier summaries kept, and on a small window the
 * summary does not fill the room the next turns need (each compaction would come sooner and write more).
 */
function updateBudget(input: PolicyInput, plan: SummaryPlan, shape: CompactionShape): number {
  const rule = input.profile.summary;
  if (plan.previousSummary === undefined) return plan.maxSummaryTokens;
  // The targets are the earlier summaries and the fresh span (the summarizer's input).
  const fresh = plan.input.reduce((sum, e) => sum + e.tokens, 0);
  const held = shape.removedTokens - fresh;
  const threshold = compactionThreshold(input.contextWindow, input.maxOutputTokens, input.profile.threshold);
  const cap = Math.min(rule.maxTokens, Math.floor(UPDATE_SHARE_OF_THRESHOLD * threshold));
  return Math.max(plan.maxSummaryTokens, Math.min(cap, held + Math.floor(rule.ratio * fresh)));
}

/** What a plan removes, reads and keeps, in tokens, as the cost model needs it. */
function shapeOf(view: readonly LiveEntry[], plan: SummaryPlan, liveTokens: number): CompactionShape {
  const targets = new Set(plan.targets);
  const first = view.findIndex((e) => targets.has(e.message.id));
  const headTokens = view.slice(0, Math.max(0, first)).reduce((sum, e) => sum + e.tokens, 0);
  const removedTokens = view.reduce((sum, e) => (targets.has(e.message.id) ? sum + e.tokens : sum), 0);
  return {
    liveTokens,
    headTokens,
    systemTokens: leadingSystemTokens(view),
    removedTokens,
    inputTokens: removedTokens,
    summaryTokens: plan.maxSummaryTokens,
  };
}

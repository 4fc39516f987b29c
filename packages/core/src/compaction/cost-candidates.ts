import type { LiveEntry } from "../session/session-state.ts";
import type { CompactionShape } from "./compaction-cost.ts";
import type { PolicyInput, SummaryPlan } from "./policy-types.ts";
import { isSummaryEntry } from "./span-selection.ts";
import { planSummary } from "./summary-plan.ts";
import { tailBudget } from "./threshold.ts";

/** A summary plan the cost-optimal policy may choose, with the tail budget it was planned with and its shape. */
export interface PlannedCandidate {
  plan: SummaryPlan;
  tailBudget: number;
  shape: CompactionShape;
}

/** Shares of the profile's tail budget tried by default: the baseline's tail, a half, a quarter and a tenth of it. */
export const DEFAULT_TAIL_SHARES: readonly number[] = [1, 0.5, 0.25, 0.1];

/**
 * The summary plans of the view with protected tails of `shares` × the profile's tail budget, each planned
 * by planSummary (so every one keeps the head, whole tool pairs and the pinned last turn), less duplicates.
 */
export function costCandidates(
  input: PolicyInput,
  shares: readonly number[] = DEFAULT_TAIL_SHARES,
): PlannedCandidate[] {
  const full = tailBudget(input.contextWindow, input.profile.tail);
  const seen = new Set<string>();
  const candidates: PlannedCandidate[] = [];
  for (const share of shares) {
    const budget = Math.max(0, Math.floor(share * full));
    const tail = { minTokens: budget, maxTokens: budget, ratio: 0, capRatio: 1 };
    const planned = planSummary({ ...input, profile: { ...input.profile, tail } }, "cost-optimal");
    if (planned.kind !== "summary") continue;
    const plan = { ...planned, maxSummaryTokens: updateBudget(input, planned) };
    const key = `${plan.targets.length}:${plan.targets[0]}:${plan.targets.at(-1)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push({ plan, tailBudget: budget, shape: shapeOf(input.view, plan, input.liveTokens) });
  }
  return candidates;
}

/**
 * The summary's budget when it updates an earlier one: room for what the earlier summary held plus the
 * profile's share of the fresh span (within the profile's cap), so compacting more often than the baseline
 * does not squeeze out what earlier summaries kept.
 */
function updateBudget(input: PolicyInput, plan: SummaryPlan): number {
  const rule = input.profile.summary;
  const earlier = input.view.filter((e) => isSummaryEntry(e) && plan.targets.includes(e.message.id));
  if (earlier.length === 0) return plan.maxSummaryTokens;
  const fresh = plan.input.reduce((sum, e) => sum + e.tokens, 0);
  const held = earlier.reduce((sum, e) => sum + e.tokens, 0);
  return Math.max(plan.maxSummaryTokens, Math.min(rule.maxTokens, held + Math.floor(rule.ratio * fresh)));
}

/** What a plan removes, reads and keeps, in tokens, as the cost model needs it. */
function shapeOf(view: readonly LiveEntry[], plan: SummaryPlan, liveTokens: number): CompactionShape {
  const targets = new Set(plan.targets);
  const first = view.findIndex((e) => targets.has(e.message.id));
  const headTokens = view.slice(0, Math.max(0, first)).reduce((sum, e) => sum + e.tokens, 0);
  const removedTokens = view.reduce((sum, e) => (targets.has(e.message.id) ? sum + e.tokens : sum), 0);
  return { liveTokens, headTokens, removedTokens, inputTokens: removedTokens, summaryTokens: plan.maxSummaryTokens };
}

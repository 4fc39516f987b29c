import type { LiveEntry } from "../session/session-state.ts";
import type { CompactionShape } from "./compaction-cost.ts";
import type { PolicyInput, SummaryPlan } from "./policy-types.ts";
import { isSummaryEntry, leadingSystemTokens, summaryHeadTokens } from "./span-selection.ts";
import { type SummaryNeed, summariesEstimate, summaryNeed, summaryRequestTokens } from "./summary-need.ts";
import { planSummary } from "./summary-plan.ts";
import { compactionThreshold, tailBudget } from "./threshold.ts";

/** A summary plan the cost-optimal policy may choose, with the tail budget it was planned with and its shape. */
export interface PlannedCandidate {
  /** planSummary's plan with this tail, at the summary budget it is offered with. */
  plan: SummaryPlan;
  /** The protected tail's token budget it was planned with. */
  tailBudget: number;
  /** It keeps the earlier summaries as they are (the new summary follows them) rather than updating them. */
  keepsSummaries: boolean;
  /** What it removes, reads and keeps, in tokens, as the cost model needs it; its summary at its expected size. */
  shape: CompactionShape;
  /** What its summary must hold to keep every fact of what it replaces (docs/fidelity.md). */
  need: SummaryNeed;
  /** Facts its summary is expected to drop at its budget (0 when the budget holds the need). */
  lostItems: number;
  /** Of those, the span's own: the rest are of the earlier summaries it folds in (none when it keeps them). */
  lostFreshItems: number;
  /**
   * The earlier summaries it keeps whole, in the summarizer's units as an update's need counts them
   * (summariesEstimate: each at the larger of its text's estimate and its counted tokens): 0 for an update.
   * Only the summaries: the other messages before its span are not counted.
   */
  keptSummaryTokens: number;
  /**
   * Of its summary's expected tokens (`shape.summaryTokens`), those written for its span's own content: not
   * its frame, nor the earlier summaries it folds in. They grow with the span, so summarizing the same
   * messages in one compaction or in several writes about as many.
   */
  spanSummaryTokens: number;
  /** The tokens it removes less the earlier summaries it folds in: the span's own messages. */
  freshTokens: number;
  /**
   * A plan keeping the earlier summaries: the counted tokens its summary may still grow by before the kept
   * chain passes its cap (keptCap), past which only an update is offered. Infinity for an update.
   */
  chainRoom: number;
}

/** Shares of the profile's tail budget tried by default: the baseline's tail, a half, a quarter and a tenth of it. */
export const DEFAULT_TAIL_SHARES: readonly number[] = [1, 0.5, 0.25, 0.1];

/** Room given for a span's facts beyond their estimate (summaryNeed is within 15% of what the offline summary writes). */
const NEED_MARGIN = 1.15;

/** A summary's room for its span's facts, and a kept chain, are at most this share of the threshold (a small window's compactions stay apart). */
const THRESHOLD_SHARE = 0.25;

/** What the earlier summaries and the new one may hold together when kept side by side: twice the profile's cap (keptCap). */
const KEPT_SUMMARIES_FACTOR = 2;

/**
 * The summary plans of the view with protected tails of `shares` × the profile's tail budget, each planned
 * by planSummary (so every one keeps the head, whole tool pairs and the pinned last turn), less duplicates.
 * Each span is offered at the profile's budget and, where that is short of what the span's facts need
 * (summaryNeed), with room for them all up to the recall cap.
 * Where the view holds summaries, each tail is planned twice: updating them (the new summary folds them in)
 * and keeping them (the new summary follows them, so neither they nor the prompt before them are read or
 * written again). Keeping is offered while what stays before the new summary and the summary itself fit
 * twice the profile's summary cap and a quarter of the threshold (keptCap), the requests the kept
 * summaries hold left out (summaryRequestTokens): past it, only an update can shrink them, and no update
 * drops a request.
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
      const room = planned.maxSummaryTokens;
      const folded = keepsSummaries ? [] : earlierSummaries(input.view, planned);
      const need = summaryNeed(planned.input, folded);
      const freshTokens = plannedShape.removedTokens - folded.reduce((sum, e) => sum + e.tokens, 0);
      const kept = keepsSummaries ? keptSummaries(input.view, planned) : [];
      const keptRequestTokens = keepsSummaries ? summaryRequestTokens(kept, planned.input) : 0;
      const keptSummaryTokens = summariesEstimate(kept);
      // The rule's budget, and where it is short of the span's facts, room for them all up to the recall cap.
      const factRoom = Math.max(room, Math.min(Math.ceil(NEED_MARGIN * need.tokens), recallCap(input)));
      for (const summaryBudget of factRoom > room ? [room, factRoom] : [room]) {
        const plan = { ...planned, maxSummaryTokens: summaryBudget };
        const shape = { ...plannedShape, summaryTokens: expectedSummaryTokens(need, summaryBudget) };
        // The kept summaries' requests are left out of the cap: an update would keep them too. All in the
        // session's counted tokens, the units of the chain and of the prompt the cap keeps under the
        // threshold: the new summary at its expected counted size, not its budget (the summarizer's units).
        // The profile's summary cap in keptCap is the one term that is not (see there).
        const chainRoom = keepsSummaries
          ? keptCap(input) - (keptTokens(shape) - keptRequestTokens + shape.summaryTokens)
          : Number.POSITIVE_INFINITY;
        if (chainRoom < 0) continue;
        seen.add(key);
        const lost = lostAt(need, summaryBudget);
        const spanSummaryTokens = shape.summaryTokens - Math.min(shape.summaryTokens, need.counted.fixedTokens);
        candidates.push({
          plan,
          tailBudget: budget,
          keepsSummaries,
          shape,
          need,
          ...lost,
          keptSummaryTokens,
          spanSummaryTokens,
          freshTokens,
          chainRoom,
        });
      }
    }
  }
  return candidates;
}

/** The summary the summary policy would write now (its plan on this view): its room and the facts it would drop. */
export interface BaselineSummary {
  /** The room its plan gives the summary (the profile's budget rule). */
  budget: number;
  /** The facts it would be expected to drop at that room. */
  lostItems: number;
  /** Of those, its span's own: the rest are of the earlier summaries it folds in. */
  lostFreshItems: number;
}

/**
 * The summary the summary policy would write on this view (the profile's tail and budget rule, earlier
 * summaries updated); undefined when it would have nothing to summarize. Without a price on facts, a due
 * plan that drops facts must give its summary at least this room and drop no more of its span's own facts
 * than this (the earlier summaries' are left out of that comparison: every plan folds them in or keeps them).
 */
export function baselineSummary(input: PolicyInput): BaselineSummary | undefined {
  const planned = planSummary(input, "summary");
  if (planned.kind !== "summary") return undefined;
  const need = summaryNeed(planned.input, earlierSummaries(input.view, planned));
  return { budget: planned.maxSummaryTokens, ...lostAt(need, planned.maxSummaryTokens) };
}

/**
 * The summary's expected size at `budget`, in the session's counted tokens (the cost model's units): what
 * the need takes, within the budget, but never less than what no summarizer cuts (its frame and the requests
 * verbatim), which may pass the budget. The budget is fitted in the summarizer's units (the need's
 * `tokens`): what fits of the cuttable part is converted at its own ratio (need.counted).
 */
function expectedSummaryTokens(need: SummaryNeed, budget: number): number {
  const { counted } = need;
  if (budget >= need.tokens) return counted.tokens;
  const cuttable = need.tokens - need.hardTokens;
  if (budget <= need.hardTokens || cuttable <= 0) return counted.hardTokens;
  return Math.round(
    counted.hardTokens + ((budget - need.hardTokens) * (counted.tokens - counted.hardTokens)) / cuttable,
  );
}

/**
 * Facts a summary is expected to drop at `budget`: of those it may drop (not requests), the share of their
 * need that does not fit; and of those, the fresh span's (its droppable facts at the same share).
 */
function lostAt(need: SummaryNeed, budget: number): { lostItems: number; lostFreshItems: number } {
  const cuttable = need.tokens - need.hardTokens;
  // Nothing cuttable is nothing droppable: every item takes tokens beyond the hard ones.
  if (budget >= need.tokens || cuttable <= 0) return { lostItems: 0, lostFreshItems: 0 };
  const lostShare = 1 - Math.max(0, budget - need.hardTokens) / cuttable;
  const droppable = need.items - need.requests;
  return { lostItems: droppable * lostShare, lostFreshItems: (droppable - need.earlierItems) * lostShare };
}

/** The summaries before a plan's first target (what a plan that keeps them keeps). */
function keptSummaries(view: readonly LiveEntry[], plan: SummaryPlan): LiveEntry[] {
  const first = view.findIndex((e) => e.message.id === plan.targets[0]);
  return view.slice(0, Math.max(0, first)).filter(isSummaryEntry);
}

/** The summaries among a plan's targets (what an update folds in). */
function earlierSummaries(view: readonly LiveEntry[], plan: SummaryPlan): LiveEntry[] {
  const targets = new Set(plan.targets);
  return view.filter((e) => targets.has(e.message.id) && isSummaryEntry(e));
}

/**
 * How many more turns of `growth` tokens a plan that drops no fact is expected to stay on offer: for each
 * candidate that drops none, until its need outgrows the room a summary may take to keep every fact (the
 * recall cap, or its budget where that is more; never, when nothing in it can be cut: requests and frame
 * alone are kept at any size) and, keeping the earlier summaries, until its summary outgrows the kept
 * chain's room (chainRoom); the need and the summary grow by what a turn's growth adds at their share of
 * its span (the fixed part left out, each in its own units). The most of those: 0 when every candidate
 * drops facts, Infinity without growth.
 */
export function lossFreeTurns(input: PolicyInput, candidates: readonly PlannedCandidate[], growth: number): number {
  const cap = recallCap(input);
  const turnsFor = (left: number, perToken: number) =>
    growth > 0 && perToken > 0 ? Math.max(0, left) / (perToken * growth) : Number.POSITIVE_INFINITY;
  let turns = 0;
  for (const c of candidates) {
    if (c.lostItems > 0) continue;
    const fresh = Math.max(1, c.freshTokens);
    const needTurns =
      c.need.tokens <= c.need.hardTokens
        ? Number.POSITIVE_INFINITY
        : turnsFor(
            Math.max(cap, c.plan.maxSummaryTokens) - c.need.tokens,
            Math.max(0, c.need.tokens - c.need.fixedTokens) / fresh,
          );
    const chainTurns = turnsFor(c.chainRoom, c.spanSummaryTokens / fresh);
    turns = Math.max(turns, Math.min(needTurns, chainTurns));
  }
  return turns;
}

/**
 * The most a summary may grow to keep every fact of its span: the profile's cap (the summary policy's
 * own summary never passes it), within the share of the threshold an update may take.
 */
function recallCap(input: PolicyInput): number {
  const threshold = compactionThreshold(input.contextWindow, input.maxOutputTokens, input.profile.threshold);
  return Math.min(input.profile.summary.maxTokens, Math.floor(THRESHOLD_SHARE * threshold));
}

/** Tokens before the plan's first target other than the leading system messages: what a kept chain holds. */
function keptTokens(shape: CompactionShape): number {
  return shape.headTokens - shape.systemTokens;
}

/**
 * What a kept chain and the new summary may hold together: twice the profile's cap, within the share of
 * the threshold an update may take (on a small window a longer chain would leave the prompt over the
 * threshold after every compaction, due again at the next request).
 * The share of the threshold is in counted tokens, like what it is compared with. The profile's cap is
 * not: it caps a summary's budget, in the summarizer's units, and is compared unconverted. Where the chain
 * and the new summary are prose (about 5 characters a counted token against the estimate's 3.25) it is
 * looser than two summaries at the cap would count, and errs towards keeping (a chain up to about half as
 * long again before only an update is offered); where they are paths, commands and figures, which count
 * about at their estimate or over it (the summary of tool calls in summary-units.test.ts, its requests
 * left out: 2,251 counted for 1,714 estimated), it is about exact or errs towards an update. It is not
 * converted because no ratio at hand fits both: the chain less its requests is mostly those dense lines,
 * and the new summary holds its span's prose requests; the kept summaries' own ratio is lowered by the
 * very requests left out, and the span's requests' ratio is prose's.
 */
function keptCap(input: PolicyInput): number {
  const threshold = compactionThreshold(input.contextWindow, input.maxOutputTokens, input.profile.threshold);
  return Math.min(KEPT_SUMMARIES_FACTOR * input.profile.summary.maxTokens, Math.floor(THRESHOLD_SHARE * threshold));
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
    summaryHeadTokens: summaryHeadTokens(view, Math.max(0, first)),
    removedTokens,
    inputTokens: removedTokens,
    summaryTokens: plan.maxSummaryTokens,
  };
}

import type { CachePrices } from "../cache-model/cache-rules.ts";
import { ValidationError } from "../errors.ts";
import { type AntiThrashConfig, assessBackoff, DEFAULT_ANTI_THRASH } from "./anti-thrash.ts";
import {
  type CompactionCost,
  compactionCost,
  costPerTurnText,
  cycleCostPerTurn,
  isCacheCold,
  optimalCycleTurns,
  promptAfter,
  readPrice,
} from "./compaction-cost.ts";
import {
  type BaselineSummary,
  baselineSummary,
  costCandidates,
  lossFreeTurns,
  type PlannedCandidate,
} from "./cost-candidates.ts";
import { gateCompaction } from "./policy-gate.ts";
import type { CompactionPolicy, NoPlan, PolicyInput, SummaryPlan } from "./policy-types.ts";
import { spanRun } from "./span-selection.ts";
import { type PolicyOptions, reached } from "./summary-policy.ts";
import { compactionThreshold } from "./threshold.ts";
import { turnGrowth } from "./turn-growth.ts";

/** Refuses a `lostFactUsd` that is not a finite amount of 0 or more (VALIDATION at `path`); nothing when unset. */
export function checkLostFactUsd(lostFactUsd: unknown, path: string): void {
  if (
    lostFactUsd === undefined ||
    (typeof lostFactUsd === "number" && Number.isFinite(lostFactUsd) && lostFactUsd >= 0)
  )
    return;
  throw new ValidationError(
    "lostFactUsd must be a finite number of US dollars, 0 or more",
    [`${path}: ${JSON.stringify(lostFactUsd)}`],
    { path },
  );
}

/** Expected lost facts are estimates: a difference below this is none. */
const LOST_EPSILON = 1e-9;

/**
 * Without a price on facts, a plan that drops none is expected to stay on offer for fewer turns than this:
 * the last turns before its span's facts outgrow the room a summary may take (lossFreeTurns).
 */
const CLOSING_TURNS = 8;

/** Options of the cost-optimal policy: the summarizer's prices and the tails it tries. */
export interface CostOptimalOptions extends PolicyOptions {
  /** What the summarizer's model costs (default: the profile's prices, the agent's model). */
  summarizerPrices?: CachePrices;
  /** Shares of the profile's tail budget to plan spans with (default 1, 0.5, 0.25 and 0.1). */
  tailShares?: readonly number[];
  /**
   * What one fact a summary drops is worth to you, in USD (docs/compaction.md, "Recall against cost"): a
   * plan that drops facts is then taken when what it saves pays for them. Default: no price, and no trade:
   * a compaction the summary policy would not make drops no fact, and one it would make drops no more of
   * its span's facts than summary's would of its span's.
   */
  lostFactUsd?: number;
  /**
   * The summarizer reads the span inside the conversation, from the agent's prompt cache
   * (Summarizer.readsConversation; the runtime sets it from the summarizer): each compaction then reads
   * the whole live prompt at the cache's read price rather than the span at the summarizer's input price.
   */
  summarizerReadsConversation?: boolean;
}

/**
 * One span the policy considered (a PlannedCandidate: its plan, shape and facts), with what compacting it
 * costs now and per turn after, and whether the fact rule lets it be chosen.
 */
export interface CostCandidate extends PlannedCandidate {
  /** Compacting it before the next request (cold or warm as the cache is). */
  now: CompactionCost;
  /** The cycle length it would repeat at (turns between compactions), within the threshold. */
  cycleTurns: number;
  /**
   * Expected USD per turn after it: the base prompt read, the summary a turn's growth adds, the cycle's
   * compactions (what each writes whatever its span) and the span carried.
   */
  costPerTurn: number;
  /** Tokens it takes off the prompt (what it removes less its summary). */
  reclaims: number;
  /** The fact rule lets it be chosen (docs/compaction.md, "Recall against cost"): it is among those the cheapest is taken from. */
  allowed: boolean;
}

/** The decision before one request: compact or wait, with the figures it compared. */
export interface CostDecision {
  compact: boolean;
  /** The view reached the summary baseline's threshold: a compaction is due whatever it costs. */
  due: boolean;
  /** The cache is cold: the idle gap since the previous request passed the profile's TTL. */
  cold: boolean;
  /** Observed tokens added per turn. */
  growth: number;
  /** A candidate must reclaim this many tokens to be considered (the anti-thrash floor), unless none does and one is due. */
  floor: number;
  /**
   * Due and without a price on facts (lostFactUsd unset): the summary the summary policy would write now,
   * its room and the facts it would drop. Without a price, a plan that drops facts is considered only
   * when due, with at least that room (the earlier summaries a plan keeps whole count as its room) and
   * dropping no more of its span's own facts (else, due, the least lossy).
   */
  baseline?: BaselineSummary;
  candidates: CostCandidate[];
  /** The cheapest per turn of the candidates the fact rule allows (undefined when there is nothing to compact). */
  chosen?: CostCandidate;
  /** USD per turn of carrying the chosen span uncompacted (its tokens read once more). */
  waitCostPerTurn: number;
  /**
   * USD per turn that compacting now amounts to: its cost spread over the cycle it starts, beyond what any
   * summarizing policy pays for these tokens (the summarizer reading the span, the summary of its content).
   */
  compactCostPerTurn: number;
  /**
   * Before the threshold, without a price on facts, when a plan is chosen: the turns a plan that drops no
   * fact is expected to stay on offer (lossFreeTurns); past them, nothing may compact before the threshold.
   */
  lossFreeTurns?: number;
  reason: string;
}

/**
 * Decides, before a request, whether compacting now is cheaper than waiting, and which span to compact.
 * Candidates are summary plans (planSummary) with different protected tails; each is costed by the profile's
 * cache rule and prices, the summarizer at its own, and by the facts its summary would drop: without a price
 * on them (lostFactUsd) only plans that drop none, or when due drop no more of their span's facts than
 * summary's would of its span's, with at least its room, are considered; with one, what they drop is a cost.
 * The cheapest per turn is chosen. Waiting costs the chosen span's cache reads for one more turn; compacting
 * costs the compaction spread over the cycle it starts (optimalCycleTurns; the summary's own content is a
 * cost of each turn's growth instead), and it must repay its whole cost within half the turns the session
 * has run. In the last turns a plan that drops no fact is on offer (lossFreeTurns), it compacts if that is
 * expected to repay its whole cost before the threshold. At the summary threshold a compaction is due
 * regardless, so no request goes out later than the baseline's would; a cold cache makes the rewrite a
 * credit, so it compacts then.
 */
export function decideCompaction(input: PolicyInput, options: CostOptimalOptions = {}): CostDecision {
  checkLostFactUsd(options.lostFactUsd, "lostFactUsd");
  const { profile } = input;
  const threshold = compactionThreshold(input.contextWindow, input.maxOutputTokens, profile.threshold);
  const prices = profile.prices;
  const summarizer = options.summarizerPrices ?? prices;
  const read = readPrice(profile.cache, prices);
  const growth = turnGrowth(input.view);
  const cold = isCacheCold(profile.cache, input.nowMs, input.previousRequestMs);
  const due = input.force || input.liveTokens >= threshold;
  const floor = (options.antiThrash ?? DEFAULT_ANTI_THRASH).ineffectiveRatio * threshold;
  const factUsd = options.lostFactUsd;
  const baseline = due && factUsd === undefined ? baselineSummary(input) : undefined;
  const candidates = costCandidates(input, options.tailShares).map((planned) => {
    const { shape, lostItems } = planned;
    // A summarizer reading the conversation gets it only for a span that is one run of the view (spanRun):
    // another span it reads as any summarizer does.
    const inConversation =
      options.summarizerReadsConversation === true && spanRun(input.view, planned.plan.targets) !== undefined;
    // The summary's own content (its span's requests and facts) grows with the span: summarizing the same
    // messages at any cadence writes about as much of it, so it is a cost of each turn's growth, not of
    // each compaction. What a summary writes whatever its span's length (its frame, the earlier summaries an
    // update writes again) is a cost of each compaction, spread over the cycle with the rewrite.
    const spanWrite =
      ((planned.spanSummaryTokens / Math.max(1, planned.freshTokens)) * growth * summarizer.output) / 1_000_000;
    const fixedSummary = shape.summaryTokens - planned.spanSummaryTokens;
    // What each compaction pays beyond its span's content: the summary's fixed part written, and the summary
    // carried into the next one, with what the next one's reading costs beyond the span it summarizes: with
    // the span alone, the summary is read again at the summarizer's input price and each grown token once;
    // inside the conversation, the next compaction reads the whole prompt from the cache (about what this
    // one reads), the summary in it.
    const reuse = inConversation
      ? (fixedSummary * summarizer.output + shape.liveTokens * read) / 1_000_000
      : (shape.summaryTokens * summarizer.input + fixedSummary * summarizer.output) / 1_000_000;
    const warm = compactionCost(shape, profile.cache, prices, summarizer, false, inConversation);
    // Facts dropped are a cost of the compaction only where the user priced them (else they are refused below).
    const loss = factUsd === undefined ? 0 : factUsd * lostItems;
    const cycleCost = warm.rewrite + reuse + loss;
    const maxTurns = growth > 0 ? (threshold - promptAfter(shape)) / growth : 1;
    const cycleTurns = optimalCycleTurns(cycleCost, growth, read, maxTurns);
    const costPerTurn =
      (read * promptAfter(shape) + (inConversation ? 0 : growth * summarizer.input)) / 1_000_000 +
      cycleCostPerTurn(cycleCost, cycleTurns, growth, read) +
      spanWrite;
    const now = cold ? compactionCost(shape, profile.cache, prices, summarizer, true, inConversation) : warm;
    const reclaims = shape.liveTokens - promptAfter(shape);
    return { ...planned, now, cycleTurns, costPerTurn, reclaims, reuse, loss };
  });
  // Without a price on facts, a plan drops none where summary would not compact; where it would, a plan
  // that drops facts gives its summary at least summary's room and drops no more of its span's facts than
  // summary's would of its span's (the earlier summaries an update folds in are counted by size, the same
  // for both, and would drown the difference); when none does either, the least lossy. Summary's room must
  // hold the earlier summaries too: a plan that keeps them whole counts them as room of its own. Only them:
  // the other messages before its span (the first ones an earlier compaction kept) are in summary's span, so
  // what summary's room gives their facts already shows in its dropped facts. One unit, the summarizer's
  // (estimateTokens, what both budgets are fitted in): a kept summary's text is at hand, so its estimate is
  // exact there, and it is what an update's need counts it at (its counted tokens where those are more,
  // summariesEstimate); the counted tokens of the summaries not yet written, the other way round, could
  // only be guessed at a ratio.
  const fair = candidates.filter(
    (c) =>
      c.lostItems <= LOST_EPSILON ||
      (baseline !== undefined &&
        c.plan.maxSummaryTokens + c.keptSummaryTokens >= baseline.budget &&
        c.lostFreshItems <= baseline.lostFreshItems + LOST_EPSILON),
  );
  const fewestLost = Math.min(...candidates.map((c) => c.lostItems));
  const leastLossy = candidates.filter((c) => c.lostItems <= fewestLost + LOST_EPSILON);
  const allowed = factUsd !== undefined ? candidates : fair.length > 0 || !due ? fair : leastLossy;
  // The cheapest per turn of those that reclaim the floor; when one is due and none does, the one that
  // reclaims most (a compaction that frees little would only be due again at the next request).
  const effective = allowed.filter((c) => c.reclaims >= floor);
  const best =
    effective.length > 0 || !due
      ? effective.reduce<(typeof effective)[number] | undefined>(
          (a, c) => (a === undefined || c.costPerTurn < a.costPerTurn ? c : a),
          undefined,
        )
      : allowed.reduce<(typeof allowed)[number] | undefined>(
          (a, c) => (a === undefined || c.reclaims > a.reclaims ? c : a),
          undefined,
        );
  const base = {
    due,
    cold,
    growth,
    floor,
    candidates: candidates.map((c) => strip(c, allowed)),
    ...(baseline === undefined ? {} : { baseline }),
  };
  if (best === undefined) {
    const why =
      candidates.length === 0
        ? "nothing to compact"
        : allowed.length === 0
          ? "every span would drop facts its summary has no room for"
          : `no span would reclaim ${Math.round(floor)} tokens`;
    return { ...base, compact: false, waitCostPerTurn: 0, compactCostPerTurn: 0, reason: why };
  }
  const waitCostPerTurn = (read * best.reclaims) / 1_000_000;
  // Compacting now starts a cycle: its cost now (beyond the span's summarizer input and its summary's own
  // content, paid by any policy that summarizes these tokens) spread over the best cycle for that cost (one
  // turn when it is a credit).
  const nowCost = best.now.rewrite + best.reuse + best.loss;
  const maxTurns = growth > 0 ? (threshold - promptAfter(best.shape)) / growth : 1;
  const nowTurns = optimalCycleTurns(nowCost, growth, read, maxTurns);
  const compactCostPerTurn = cycleCostPerTurn(nowCost, nowTurns, growth, read);
  const figures = `waiting costs $${usd(waitCostPerTurn)}/turn, ${costPerTurnText("compacting", compactCostPerTurn)} over ${nowTurns} turns (tail ${best.tailBudget}${best.keepsSummaries ? ", earlier summaries kept" : ""}, growth ${Math.round(growth)}/turn${cold ? ", cache cold" : ""})`;
  // An early compaction must also repay its whole cost (summarizer included) soon enough: within half the
  // turns the session has run. Under a Lindy prior (a session that ran L turns runs t more with chance
  // L / (L + t)) that is two chances in three of living long enough; a short session may end first.
  const paybackTurns = waitCostPerTurn > 0 ? (best.now.total + best.loss) / waitCostPerTurn : Number.POSITIVE_INFINITY;
  const lasted = input.compactions > 0 ? Number.POSITIVE_INFINITY : turnsIn(input.view);
  const steady = waitCostPerTurn >= compactCostPerTurn && paybackTurns <= lasted / 2;
  // Waiting is the cheaper steady cycle only while a plan that drops no fact stays on offer. In its last
  // turns (the span's facts about to outgrow the room a summary may take), waiting means carrying the whole
  // span to the threshold and compacting there, dropping facts: it compacts then if what it saves until the
  // threshold (the span's reads each turn the session lives on, up to the turns left before it) is expected
  // to repay its whole cost. Under the same prior, the turns it is expected to live within the next D are
  // L × ln(1 + D / L); D itself once a compaction has shown the session long.
  const lossFree = due || factUsd !== undefined ? undefined : lossFreeTurns(input, candidates, growth);
  const turnsToDue = growth > 0 ? (threshold - input.liveTokens) / growth : Number.POSITIVE_INFINITY;
  const livedToDue = Number.isFinite(lasted) ? lasted * Math.log1p(turnsToDue / Math.max(1, lasted)) : turnsToDue;
  const lastChance = lossFree !== undefined && lossFree < CLOSING_TURNS && paybackTurns <= livedToDue;
  const early = !due && read > 0 && growth > 0 && (steady || lastChance);
  const compact = due || early;
  const why = due
    ? `${reached(input.liveTokens, threshold, input.force)}; ${figures}`
    : early
      ? `${input.liveTokens} live tokens, under the threshold of ${threshold}, but ${figures}${steady ? "" : `; a summary keeping every fact is on offer about ${Math.floor(lossFree ?? 0)} more turns, and compacting repays itself in ${Math.ceil(paybackTurns)}, before the threshold`}`
      : `${input.liveTokens} live tokens, under the threshold of ${threshold}: ${figures}`;
  const offer = lossFree === undefined ? {} : { lossFreeTurns: lossFree };
  return { ...base, compact, chosen: strip(best, allowed), waitCostPerTurn, compactCostPerTurn, ...offer, reason: why };
}

/**
 * Cost-optimal: compacts when compacting now is cheaper than waiting (decideCompaction), choosing the span
 * that minimises expected cost per turn; never later than the summary baseline. Honours the anti-thrash
 * check as the others do.
 */
export function costOptimalPolicy(options: CostOptimalOptions = {}): CompactionPolicy {
  const antiThrash = options.antiThrash ?? DEFAULT_ANTI_THRASH;
  return {
    name: "cost-optimal",
    plan(input): SummaryPlan | NoPlan {
      const decision = decideCompaction(input, options);
      if (!decision.compact || decision.chosen === undefined) return { kind: "none", reason: decision.reason };
      const blocked = decision.due ? dueBackoff(input, antiThrash) : earlyBackoff(input, antiThrash);
      if (blocked !== undefined) return { kind: "none", reason: `backing off: ${blocked}` };
      return { ...decision.chosen.plan, reason: `${decision.reason}: ${decision.chosen.plan.reason}` };
    },
  };
}

/** At the threshold the baseline's gate applies (summaries blocked count, as it only summarizes). */
function dueBackoff(input: PolicyInput, antiThrash: AntiThrashConfig): string | undefined {
  const gate = gateCompaction(input, antiThrash);
  if ("kind" in gate) return gate.reason;
  return gate.backoff.blocks === "nothing" ? undefined : gate.backoff.reason;
}

/** Under the threshold the gate would say no, so the anti-thrash check is asked directly. */
function earlyBackoff(input: PolicyInput, antiThrash: AntiThrashConfig): string | undefined {
  if (input.history === undefined) return undefined;
  const threshold = compactionThreshold(input.contextWindow, input.maxOutputTokens, input.profile.threshold);
  const backoff = assessBackoff({ ...input.history, liveTokens: input.liveTokens, threshold }, antiThrash);
  return backoff.blocks === "nothing" ? undefined : backoff.reason;
}

/** Provider requests the view holds (one per assistant message). */
function turnsIn(view: PolicyInput["view"]): number {
  return view.reduce((n, e) => (e.message.role === "assistant" ? n + 1 : n), 0);
}

/** The candidate as the decision reports it, without the figures only the choice needed. */
function strip(
  candidate: Omit<CostCandidate, "allowed"> & { reuse: number; loss: number },
  allowed: readonly unknown[],
): CostCandidate {
  const { reuse, loss, ...kept } = candidate;
  return { ...kept, allowed: allowed.includes(candidate) };
}

function usd(value: number): string {
  return value.toFixed(5);
}

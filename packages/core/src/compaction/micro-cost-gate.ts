import type { CachePrices } from "../cache-model/cache-rules.ts";
import type { LiveEntry } from "../session/session-state.ts";
import {
  compactionCost,
  costPerTurnText,
  cycleCostPerTurn,
  isCacheCold,
  optimalCycleTurns,
  promptAfter,
  readPrice,
} from "./compaction-cost.ts";
import type { ProviderProfile } from "./provider-profile.ts";
import { isSummaryEntry, leadingSystemTokens, selectSpan, summaryHeadTokens } from "./span-selection.ts";
import { compactionThreshold } from "./threshold.ts";
import { turnGrowth } from "./turn-growth.ts";

/** What the micro gate weighs: the view, its window and profile, the micro tail, and the request times. */
export interface MicroGateInput {
  view: readonly LiveEntry[];
  liveTokens: number;
  contextWindow: number;
  maxOutputTokens: number;
  profile: ProviderProfile;
  tailTokens: number;
  batchCompactions: number;
  nowMs?: number;
  previousRequestMs?: number;
  summarizerPrices?: CachePrices;
}

/** Whether a batch of micro passes is worth running before the next request, with the figures compared. */
export interface MicroGate {
  due: boolean;
  cold: boolean;
  /** Tokens of the exchanges the passes would absorb (the middle less user messages and summaries). */
  backlogTokens: number;
  waitCostPerTurn: number;
  compactCostPerTurn: number;
  reason: string;
}

/**
 * The cost-optimal rule for micro-compaction on a cached profile: every pass rewrites the prompt from the
 * rolling marker on, so passes are batched. A batch (absorbing the whole backlog before one request, one
 * rewrite) is due when the cache is cold and the backlog is worth a summary, or when carrying the backlog
 * one more turn costs at least the batch spread over its best cycle (decideCompaction's rule, with the
 * backlog as the span and the marker growing by the profile's summary ratio). No cache: always due.
 */
export function microBatchGate(input: MicroGateInput): MicroGate {
  const { view, profile } = input;
  const prices = profile.prices;
  const summarizer = input.summarizerPrices ?? prices;
  const read = readPrice(profile.cache, prices);
  const cold = isCacheCold(profile.cache, input.nowMs, input.previousRequestMs);
  const span = selectSpan(view, input.tailTokens, input.batchCompactions);
  let changeAt = -1;
  let backlog = 0;
  let marker = 0;
  for (let i = span.headEnd; i < span.tailStart; i++) {
    const entry = view[i] as LiveEntry;
    if (isSummaryEntry(entry)) {
      marker += entry.tokens;
      if (changeAt < 0) changeAt = i;
      continue;
    }
    if (entry.message.role === "user" || span.pinned.has(i)) continue;
    backlog += entry.tokens;
    if (changeAt < 0) changeAt = i;
  }
  const base = { cold, backlogTokens: backlog };
  if (profile.cache.kind === "none" || read <= 0) {
    return { ...base, due: backlog > 0, waitCostPerTurn: 0, compactCostPerTurn: 0, reason: "no prompt cache to keep" };
  }
  if (backlog === 0)
    return { ...base, due: false, waitCostPerTurn: 0, compactCostPerTurn: 0, reason: "nothing to absorb" };
  const headTokens = view.slice(0, Math.max(0, changeAt)).reduce((n, e) => n + e.tokens, 0);
  const summaryTokens = marker + Math.ceil(profile.summary.ratio * backlog);
  const shape = {
    liveTokens: input.liveTokens,
    headTokens,
    systemTokens: leadingSystemTokens(view),
    summaryHeadTokens: summaryHeadTokens(view, Math.max(0, changeAt)),
    removedTokens: backlog + marker,
    inputTokens: backlog + marker,
    summaryTokens,
  };
  const growth = turnGrowth(view);
  const threshold = compactionThreshold(input.contextWindow, input.maxOutputTokens, profile.threshold);
  const now = compactionCost(shape, profile.cache, prices, summarizer, cold);
  const reuse = (summaryTokens * (summarizer.input + summarizer.output)) / 1_000_000;
  const maxTurns = growth > 0 ? (threshold - promptAfter(shape)) / growth : 1;
  const turns = optimalCycleTurns(now.rewrite + reuse, growth, read, maxTurns);
  const compactCostPerTurn = cycleCostPerTurn(now.rewrite + reuse, turns, growth, read);
  const waitCostPerTurn = (read * (shape.liveTokens - promptAfter(shape))) / 1_000_000;
  const due = waitCostPerTurn >= compactCostPerTurn;
  const reason = `a micro batch of ${backlog} tokens: waiting costs $${waitCostPerTurn.toFixed(5)}/turn, ${costPerTurnText("absorbing", compactCostPerTurn)} over ${turns} turns${cold ? " (cache cold)" : ""}`;
  return { ...base, due, waitCostPerTurn, compactCostPerTurn, reason };
}

import type { CachePrices } from "../cache-model/cache-rules.ts";
import type { PromptCacheRule } from "./provider-profile.ts";

/** A candidate compaction as the cost model sees it, in tokens. */
export interface CompactionShape {
  /** Live tokens before it. */
  liveTokens: number;
  /** Tokens before its first target: the prefix that stays as it was. */
  headTokens: number;
  /** Tokens of the leading system messages (within headTokens). */
  systemTokens: number;
  /** Tokens of the head through its last summary (systemTokens when it holds none). */
  summaryHeadTokens: number;
  /** Tokens it removes from the view (every target, an earlier summary included). */
  removedTokens: number;
  /** Tokens the summarizer reads (the targets, an earlier summary included). */
  inputTokens: number;
  /** Tokens its summary is expected to take (the plan's budget: an upper bound). */
  summaryTokens: number;
}

/** What one compaction costs in USD: the summarizer call and the prompt's change against not compacting. */
export interface CompactionCost {
  summarizer: number;
  /** Warm: the prompt after the change point written instead of read. Cold: the smaller write (negative). */
  rewrite: number;
  total: number;
}

/** The prompt after a compaction: what was live, less what it removes, plus its summary. */
export function promptAfter(shape: CompactionShape): number {
  return shape.liveTokens - shape.removedTokens + shape.summaryTokens;
}

/** USD per million for a token read from the cache (plain input where nothing is cached). */
export function readPrice(cache: PromptCacheRule, prices: CachePrices): number {
  return cache.kind === "none" ? prices.input : prices.cachedRead;
}

/** USD per million for a token the provider writes to its cache (plain input for automatic caching or none). */
export function writePrice(cache: PromptCacheRule, prices: CachePrices): number {
  return cache.kind === "explicit-breakpoint" ? prices.cacheWrite : prices.input;
}

/**
 * Tokens of the unchanged head the provider can still read from its cache after the change. Automatic
 * prefix caching matches the whole head. Explicit breakpoints, placed as Claude Code places them (system,
 * tools, the last messages), left entries only at the system prompt and at earlier requests' ends, which
 * now lie past the change: only the system prompt is read; with a breakpoint on the last summary too
 * (summaryBreakpoint), the head through its last summary.
 */
export function cachedHead(shape: CompactionShape, cache: PromptCacheRule): number {
  if (cache.kind !== "explicit-breakpoint") return shape.headTokens;
  return cache.summaryBreakpoint === true ? Math.max(shape.systemTokens, shape.summaryHeadTokens) : shape.systemTokens;
}

/**
 * USD of the summarizer's reading for one compaction. A summarizer given the span reads it at its own input
 * price. One that reads the conversation (Summarizer.readsConversation: the agent's last request, with the
 * agent's model) reads the live prompt as a request of the agent's would (an upper bound: the request stops
 * before the agent's last reply, conversationEnd): from the cache, or written to it when the cache is cold.
 */
function summarizerReadCost(
  shape: CompactionShape,
  cache: PromptCacheRule,
  prices: CachePrices,
  summarizer: CachePrices,
  reading: { readsConversation: boolean; cold: boolean },
): number {
  if (!reading.readsConversation) return (shape.inputTokens * summarizer.input) / 1_000_000;
  const price = reading.cold ? writePrice(cache, prices) : readPrice(cache, prices);
  return (shape.liveTokens * price) / 1_000_000;
}

/**
 * The cost of compacting before the next request, against sending the prompt unchanged. The summarizer
 * reads the span (summarizerReadCost) and writes the summary at its own prices. Warm cache: what follows the
 * cached head (cachedHead) is written instead of read. Cold cache (idle past the TTL): the whole prompt is
 * written either way, so the compaction only makes that write smaller — the rewrite is free, and a credit.
 */
export function compactionCost(
  shape: CompactionShape,
  cache: PromptCacheRule,
  prices: CachePrices,
  summarizer: CachePrices,
  cold: boolean,
  readsConversation = false,
): CompactionCost {
  const reading = summarizerReadCost(shape, cache, prices, summarizer, { readsConversation, cold });
  const summary = reading + (shape.summaryTokens * summarizer.output) / 1_000_000;
  const write = writePrice(cache, prices);
  const after = promptAfter(shape);
  const rewrite = cold
    ? ((after - shape.liveTokens) * write) / 1_000_000
    : (Math.max(0, after - cachedHead(shape, cache)) * (write - readPrice(cache, prices))) / 1_000_000;
  return { summarizer: summary, rewrite, total: summary + rewrite };
}

/**
 * Expected USD per turn of one compaction cycle beyond its base prompt: a compaction costing `cost` every
 * `turns` turns, while the prompt grows by `growth` tokens a turn and each turn reads what it carries at
 * `read` USD per million: `cost / turns + read × growth × (turns − 1) / 2`.
 */
export function cycleCostPerTurn(cost: number, turns: number, growth: number, read: number): number {
  const n = Math.max(1, turns);
  return cost / n + (read * growth * (n - 1)) / 2 / 1_000_000;
}

/**
 * The cycle length (in turns, 1 to `maxTurns`) that minimises cycleCostPerTurn: about √(2·cost / (read·growth)),
 * the better of its floor and ceiling. `maxTurns` when nothing is carried at a price (growth or read 0).
 */
export function optimalCycleTurns(cost: number, growth: number, read: number, maxTurns: number): number {
  const cap = Math.max(1, Math.floor(maxTurns));
  if (growth <= 0 || read <= 0) return cap;
  const ideal = Math.sqrt((2 * Math.max(0, cost) * 1_000_000) / (read * growth));
  const low = Math.min(cap, Math.max(1, Math.floor(ideal)));
  const high = Math.min(cap, low + 1);
  return cycleCostPerTurn(cost, high, growth, read) < cycleCostPerTurn(cost, low, growth, read) ? high : low;
}

/** The idle gap between two requests passed the cache's TTL (unknown times, or no cache: never cold). */
export function isCacheCold(
  cache: PromptCacheRule,
  nowMs: number | undefined,
  previousRequestMs: number | undefined,
): boolean {
  if (nowMs === undefined || previousRequestMs === undefined || cache.kind === "none") return false;
  return nowMs - previousRequestMs > cache.ttlSeconds * 1000;
}

/**
 * A compaction's cost per turn in words for a reason line: `compacting $0.01234/turn`, or, when it is a
 * credit (the compaction makes a cache write the next request pays anyway smaller than it costs),
 * `compacting saves $0.01234/turn` instead of a negative cost.
 */
export function costPerTurnText(verb: string, usdPerTurn: number): string {
  return usdPerTurn < 0
    ? `${verb} saves $${(-usdPerTurn).toFixed(5)}/turn (it makes a cache write the next request pays anyway smaller)`
    : `${verb} $${usdPerTurn.toFixed(5)}/turn`;
}

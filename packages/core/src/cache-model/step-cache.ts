import { cacheCost } from "./cache-cost.ts";
import type { CacheEstimate } from "./cache-estimate.ts";
import type { CacheRules } from "./cache-rules.ts";
import { cacheableTokens } from "./cacheable-tokens.ts";
import { commonPrefix, promptTokens } from "./common-prefix.ts";
import type { PromptMessage, ProviderRequest } from "./provider-request.ts";

/** The prefix the provider holds: the prompt it was stored from, how many leading tokens it serves, its last use. */
export interface CacheEntry {
  messages: readonly PromptMessage[];
  tokens: number;
  lastUsedMs: number | undefined;
}

/** What the simulation carries between requests: the live cache entry and the previous prompt. */
export interface CacheState {
  entry: CacheEntry | undefined;
  previous: readonly PromptMessage[] | undefined;
}

/** The state before a session's first request: nothing cached, nothing sent. */
export const initialCacheState: CacheState = { entry: undefined, previous: undefined };

/**
 * One request through the cache: reads the longest matching cached prefix, writes the prompt back (explicit
 * breakpoint at its end, or the automatic prefix) and returns the estimate with the next state.
 */
export function stepCache(
  state: CacheState,
  request: ProviderRequest,
  rules: CacheRules,
): { state: CacheState; estimate: CacheEstimate } {
  const messages = request.messages;
  const total = promptTokens(messages);
  const { entry, previous } = state;
  const matched = entry === undefined ? 0 : commonPrefix(entry.messages, messages).tokens;
  const expired = entry !== undefined && !withinTtl(entry.lastUsedMs, request.atMs, rules.ttlSeconds);
  const cachedTokens = entry !== undefined && !expired ? cacheableTokens(matched, rules) : 0;
  const storable = cacheableTokens(total, rules);
  const cacheWriteTokens = rules.kind === "explicit-breakpoint" ? Math.max(0, storable - cachedTokens) : 0;
  const counts = {
    cachedTokens,
    uncachedTokens: total - cachedTokens,
    cacheWriteTokens,
    outputTokens: request.completionTokens,
  };
  const estimate: CacheEstimate = {
    ...counts,
    promptTokens: total,
    cacheBreak: entry !== undefined && matched < entry.tokens,
    expired,
    earliestChangedIndex: previous === undefined ? null : changedIndex(previous, messages),
    cost: cacheCost(counts, rules.prices),
  };
  const next: CacheEntry | undefined =
    storable > 0 ? { messages, tokens: storable, lastUsedMs: request.atMs } : expired ? undefined : entry;
  return { state: { entry: next, previous: messages }, estimate };
}

/** Unknown times count as within the TTL; known ones must be at most `ttlSeconds` apart. */
function withinTtl(lastUsedMs: number | undefined, atMs: number | undefined, ttlSeconds: number): boolean {
  return lastUsedMs === undefined || atMs === undefined || atMs - lastUsedMs <= ttlSeconds * 1000;
}

/** First index where `current` departs from `previous`, or null when it only appended to it. */
function changedIndex(previous: readonly PromptMessage[], current: readonly PromptMessage[]): number | null {
  const shared = commonPrefix(previous, current).messages;
  return shared === previous.length ? null : shared;
}

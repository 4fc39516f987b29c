import { cacheCost } from "./cache-cost.ts";
import type { CacheEstimate } from "./cache-estimate.ts";
import type { CacheRules } from "./cache-rules.ts";
import { cacheableTokens } from "./cacheable-tokens.ts";
import { commonPrefix, promptTokens } from "./common-prefix.ts";
import { type PrefixKeys, prefixKeys } from "./prefix-keys.ts";
import type { PromptMessage, ProviderRequest } from "./provider-request.ts";

/** A cached prefix: how many leading tokens it serves and when it was last written or read. */
export interface CacheEntry {
  tokens: number;
  lastUsedMs: number | undefined;
}

/**
 * What the simulation carries between requests: the live entries by prefix key (explicit breakpoints
 * store one per breakpoint; automatic caching one for the whole prompt), the previous prompt, and the
 * tokens the previous request left cached at its last breakpoint.
 */
export interface CacheState {
  entries: ReadonlyMap<string, CacheEntry>;
  previous: readonly PromptMessage[] | undefined;
  /** The previous request's prompt keys (automatic caching matches the new prompt against them). */
  previousKeys: PrefixKeys | undefined;
  /** Key of the entry the previous request wrote last (its longest cached prefix). */
  lastKey: string | undefined;
}

/** The state before a session's first request: nothing cached, nothing sent. */
export const initialCacheState: CacheState = {
  entries: new Map(),
  previous: undefined,
  previousKeys: undefined,
  lastKey: undefined,
};

/** Entries kept at most (the oldest are dropped); far more than four breakpoints over any look-back. */
const MAX_ENTRIES = 256;

/**
 * A state whose cache already holds `prefix` (e.g. the system prompt and tools an earlier session cached),
 * last used at `atMs`: the first request reads it if it starts with it.
 */
export function cacheStateHolding(prefix: readonly PromptMessage[], atMs: number | undefined): CacheState {
  const keys = prefixKeys(prefix);
  const last = prefix.length - 1;
  const key = keys.keys[last];
  if (key === undefined) return initialCacheState;
  return { ...initialCacheState, entries: new Map([[key, { tokens: keys.tokens[last] ?? 0, lastUsedMs: atMs }]]) };
}

/**
 * One request through the cache, returning the estimate with the next state.
 * - Explicit breakpoints (Anthropic): breakpoints on the messages marked `breakpoint` and on the last two
 *   messages, at most `maxBreakpoints`; a read only of a prefix an earlier request wrote at one of its
 *   breakpoints, found within `lookbackBlocks` blocks before one of this request's breakpoints; the write
 *   is everything from the read up to the last breakpoint. An entry idle longer than the TTL is gone.
 * - Automatic prefix (OpenAI): the longest common prefix with the previous prompt, in granularity steps
 *   from the minimum, no write surcharge.
 */
export function stepCache(
  state: CacheState,
  request: ProviderRequest,
  rules: CacheRules,
): { state: CacheState; estimate: CacheEstimate } {
  const messages = request.messages;
  const total = promptTokens(messages);
  const keys = prefixKeys(messages);
  const entries = liveEntries(state.entries, request.atMs, rules.ttlSeconds);
  const previousEntry = state.lastKey === undefined ? undefined : state.entries.get(state.lastKey);
  const expired = previousEntry !== undefined && !withinTtl(previousEntry.lastUsedMs, request.atMs, rules.ttlSeconds);
  const step =
    rules.kind === "explicit-breakpoint"
      ? explicitStep(entries, keys, messages, request.atMs, rules)
      : automaticStep(entries, keys, state, request.atMs, rules);
  const counts = {
    cachedTokens: step.read,
    uncachedTokens: total - step.read,
    cacheWriteTokens: step.write,
    outputTokens: request.completionTokens,
  };
  const previous = state.previous;
  const held = previousEntry === undefined || expired ? 0 : previousEntry.tokens;
  const shared = previous === undefined ? 0 : commonPrefix(previous, messages).tokens;
  const estimate: CacheEstimate = {
    ...counts,
    promptTokens: total,
    cacheBreak: held > 0 && shared < held,
    expired,
    earliestChangedIndex: previous === undefined ? null : changedIndex(previous, messages),
    cost: cacheCost(counts, rules.prices),
  };
  return {
    state: {
      entries: bounded(entries),
      previous: messages,
      previousKeys: keys,
      lastKey: step.lastKey ?? state.lastKey,
    },
    estimate,
  };
}

interface Step {
  read: number;
  write: number;
  lastKey: string | undefined;
}

function explicitStep(
  entries: Map<string, CacheEntry>,
  keys: PrefixKeys,
  messages: readonly PromptMessage[],
  atMs: number | undefined,
  rules: CacheRules,
): Step {
  const breakpoints = breakpointIndexes(messages, rules.maxBreakpoints ?? 4);
  const lookback = rules.lookbackBlocks ?? 20;
  let read = 0;
  let hitKey: string | undefined;
  for (const b of breakpoints) {
    const blocksAtB = keys.blocks[b] ?? 0;
    for (let j = b; j >= 0 && blocksAtB - (keys.blocks[j] ?? 0) < lookback; j--) {
      const key = keys.keys[j] as string;
      const entry = entries.get(key);
      if (entry === undefined) continue;
      if (entry.tokens > read) {
        read = entry.tokens;
        hitKey = key;
      }
      break;
    }
  }
  if (hitKey !== undefined) touch(entries, hitKey, { tokens: read, lastUsedMs: atMs });
  let written = 0;
  let lastKey: string | undefined = hitKey;
  for (const b of breakpoints) {
    const tokens = keys.tokens[b] ?? 0;
    if (tokens < rules.minCacheableTokens || tokens <= 0) continue;
    const key = keys.keys[b] as string;
    touch(entries, key, { tokens, lastUsedMs: atMs });
    if (tokens >= written) {
      written = tokens;
      lastKey = key;
    }
  }
  return { read, write: Math.max(0, written - read), lastKey };
}

function automaticStep(
  entries: Map<string, CacheEntry>,
  keys: PrefixKeys,
  state: CacheState,
  atMs: number | undefined,
  rules: CacheRules,
): Step {
  if (rules.kind === "none") return { read: 0, write: 0, lastKey: undefined };
  const previous = state.lastKey === undefined ? undefined : entries.get(state.lastKey);
  const matched =
    previous === undefined || state.previousKeys === undefined ? 0 : sharedTokens(state.previousKeys, keys);
  const read = cacheableTokens(Math.min(matched, previous?.tokens ?? 0), rules);
  const last = keys.keys.length - 1;
  const storable = cacheableTokens(keys.tokens[last] ?? 0, rules);
  if (storable === 0) return { read, write: 0, lastKey: undefined };
  const key = keys.keys[last] as string;
  entries.clear();
  entries.set(key, { tokens: storable, lastUsedMs: atMs });
  return { read, write: 0, lastKey: key };
}

/** Tokens of the longest run of leading messages two prompts share, by their keys. */
function sharedTokens(a: PrefixKeys, b: PrefixKeys): number {
  let i = 0;
  while (i < a.keys.length && i < b.keys.length && a.keys[i] === b.keys[i]) i++;
  return i === 0 ? 0 : (b.tokens[i - 1] ?? 0);
}

/**
 * Where explicit breakpoints go, latest first: the last message, the marked ones (system prompt and tools),
 * then the second-to-last message (Claude Code's sliding breakpoints), at most `max` in all.
 */
export function breakpointIndexes(messages: readonly PromptMessage[], max: number): number[] {
  const last = messages.length - 1;
  if (last < 0) return [];
  const marked = messages.flatMap((m, i) => (m.breakpoint === true ? [i] : []));
  const chosen = [...new Set([last, ...marked, ...(last >= 1 ? [last - 1] : [])])].slice(0, max);
  return chosen.sort((x, y) => y - x);
}

/** The entries still alive at `atMs` (a copy the step may change). */
function liveEntries(
  entries: ReadonlyMap<string, CacheEntry>,
  atMs: number | undefined,
  ttlSeconds: number,
): Map<string, CacheEntry> {
  const live = new Map<string, CacheEntry>();
  for (const [key, entry] of entries) if (withinTtl(entry.lastUsedMs, atMs, ttlSeconds)) live.set(key, entry);
  return live;
}

/** Sets an entry as the most recent one (Map order is insertion order). */
function touch(entries: Map<string, CacheEntry>, key: string, entry: CacheEntry): void {
  entries.delete(key);
  entries.set(key, entry);
}

function bounded(entries: Map<string, CacheEntry>): Map<string, CacheEntry> {
  if (entries.size <= MAX_ENTRIES) return entries;
  return new Map([...entries].slice(entries.size - MAX_ENTRIES));
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

import type { CacheRules, PromptMessage, ProviderRequest } from "@palimpsest/core";

/** Round prices so costs are easy to check by hand: $1 input, $0.10 read, $1.25 write, $5 output per M. */
export const PRICES = { input: 1, cachedRead: 0.1, cacheWrite: 1.25, output: 5 };

/** Anthropic-like: explicit breakpoint at the end, 5-minute TTL, 1,024-token minimum, exact prefixes. */
export const EXPLICIT: CacheRules = {
  kind: "explicit-breakpoint",
  ttlSeconds: 300,
  minCacheableTokens: 1024,
  granularityTokens: 1,
  prices: PRICES,
};

/** OpenAI-like: automatic prefix caching from 1,024 tokens, in 128-token steps, no write surcharge. */
export const AUTOMATIC: CacheRules = {
  kind: "automatic-prefix",
  ttlSeconds: 300,
  minCacheableTokens: 1024,
  granularityTokens: 128,
  prices: { ...PRICES, cacheWrite: PRICES.input },
};

/** Local model: no cache. */
export const NONE: CacheRules = {
  kind: "none",
  ttlSeconds: 0,
  minCacheableTokens: 0,
  granularityTokens: 1,
  prices: PRICES,
};

/** A message `id` of `tokens` tokens, with an optional content hash. */
export const msg = (id: string, tokens: number, contentHash?: string): PromptMessage =>
  contentHash === undefined ? { id, tokens } : { id, tokens, contentHash };

/** A request with the given prompt, send time and completion tokens (10 unless given). */
export const req = (messages: PromptMessage[], atMs?: number, completionTokens = 10): ProviderRequest =>
  atMs === undefined ? { messages, completionTokens } : { messages, atMs, completionTokens };

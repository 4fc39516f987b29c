import type { CachePrices } from "./cache-rules.ts";

/** One model's list prices in USD per million tokens, with both Anthropic cache-write tiers. */
export interface ModelPrices {
  input: number;
  output: number;
  cachedRead: number;
  /** Cache write with a 5-minute entry (Anthropic: 1.25× input; OpenAI: plain input, no surcharge). */
  cacheWrite5m: number;
  /** Cache write with a 1-hour entry (Anthropic: 2× input; OpenAI: plain input). */
  cacheWrite1h: number;
  /** Smallest prefix the provider caches for this model. */
  minCacheableTokens: number;
}

const anthropic = (input: number, output: number, minCacheableTokens: number): ModelPrices => ({
  input,
  output,
  cachedRead: input * 0.1,
  cacheWrite5m: input * 1.25,
  cacheWrite1h: input * 2,
  minCacheableTokens,
});

const openai = (input: number, cachedRead: number, output: number): ModelPrices => ({
  input,
  output,
  cachedRead,
  cacheWrite5m: input,
  cacheWrite1h: input,
  minCacheableTokens: 1_024,
});

/**
 * List prices by model family, most specific name first (a transcript's dated name such as
 * `claude-sonnet-4-5-20250929` matches `claude-sonnet-4-5`). Sources, read 2026-12-02: Anthropic's
 * pricing page (docs.anthropic.com/en/docs/about-claude/pricing: base input, 5m and 1h cache writes at
 * 1.25× and 2×, hits at 0.1×) and its prompt-caching page for the minimum cacheable prefix (4,096 for
 * Opus 4.5/4.6 and Haiku 4.5, 1,024 for Sonnet 4.x and Opus 4/4.1); OpenAI's pricing page
 * (openai.com/api/pricing: input, cached input, output; cache writes are plain input). Check before relying on them.
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrices>> = {
  "claude-opus-4-6": anthropic(5, 25, 4_096),
  "claude-opus-4-5": anthropic(5, 25, 4_096),
  "claude-opus-4-1": anthropic(15, 75, 1_024),
  "claude-opus-4": anthropic(15, 75, 1_024),
  "claude-sonnet-4-6": anthropic(3, 15, 1_024),
  "claude-sonnet-4-5": anthropic(3, 15, 1_024),
  "claude-sonnet-4": anthropic(3, 15, 1_024),
  "claude-haiku-4-5": anthropic(1, 5, 4_096),
  "gpt-5-nano": openai(0.05, 0.005, 0.4),
  "gpt-5-mini": openai(0.25, 0.025, 2),
  "gpt-5": openai(1.25, 0.125, 10),
  "gpt-4.1-nano": openai(0.1, 0.025, 0.4),
  "gpt-4.1-mini": openai(0.4, 0.1, 1.6),
  "gpt-4.1": openai(2, 0.5, 8),
  "gpt-4o-mini": openai(0.15, 0.075, 0.6),
  "gpt-4o": openai(2.5, 1.25, 10),
};

/** The model names MODEL_PRICES knows, for usage errors. */
export const KNOWN_MODELS: readonly string[] = Object.keys(MODEL_PRICES);

/**
 * The table's entry for a model name: an exact key, else the longest key the name starts with followed by
 * `-` or `@` (a dated or versioned name); undefined for an unknown model.
 */
export function modelPrices(model: string): ModelPrices | undefined {
  const name = model.trim().toLowerCase();
  const exact = MODEL_PRICES[name];
  if (exact !== undefined) return exact;
  const key = KNOWN_MODELS.filter((k) => name.startsWith(`${k}-`) || name.startsWith(`${k}@`)).sort(
    (a, b) => b.length - a.length,
  )[0];
  return key === undefined ? undefined : MODEL_PRICES[key];
}

/** A model's prices as the cache model bills them, with the write price of the chosen entry lifetime. */
export function cachePricesFor(prices: ModelPrices, ttlSeconds: number): CachePrices {
  return {
    input: prices.input,
    cachedRead: prices.cachedRead,
    cacheWrite: ttlSeconds > 300 ? prices.cacheWrite1h : prices.cacheWrite5m,
    output: prices.output,
  };
}

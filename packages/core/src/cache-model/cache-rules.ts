/** How a provider caches prompts: explicit breakpoints (Anthropic), automatic prefixes (OpenAI), or not at all. */
export type CacheKind = "explicit-breakpoint" | "automatic-prefix" | "none";

/** Prices in USD per million tokens; `cachedRead` and `cacheWrite` replace `input` for the tokens they cover. */
export interface CachePrices {
  input: number;
  cachedRead: number;
  cacheWrite: number;
  output: number;
}

/** The prompt-cache behaviour the model simulates; a ProviderProfile maps onto it field by field. */
export interface CacheRules {
  kind: CacheKind;
  /** How long an entry lives after its last write or hit. */
  ttlSeconds: number;
  /** Prefixes (and, for automatic caching, prompts) shorter than this are never cached. */
  minCacheableTokens: number;
  /** Cached prefixes grow in steps of this many tokens past the minimum (OpenAI: 128; 1 for exact). */
  granularityTokens: number;
  /**
   * Explicit breakpoints only: how many blocks before a breakpoint the provider looks for a prefix an
   * earlier request wrote (Anthropic: about 20); default 20.
   */
  lookbackBlocks?: number;
  /** Explicit breakpoints only: at most this many per request (Anthropic: 4); default 4. */
  maxBreakpoints?: number;
  /**
   * Explicit breakpoints only: the agent's requests also put a breakpoint on the prompt's last summary
   * (`toAnthropicRequest(…, { cache: { summaryId } })` does), so a compaction that keeps the
   * earlier summaries rewrites only what follows them. Default false: breakpoints where Claude Code places
   * them (the system prompt, the last messages).
   */
  summaryBreakpoint?: boolean;
  prices: CachePrices;
}

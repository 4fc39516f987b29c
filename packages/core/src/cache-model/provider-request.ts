/** One prompt message as the cache sees it: identity, size, and a hash that changes when it is rewritten in place. */
export interface PromptMessage {
  id: string;
  tokens: number;
  contentHash?: string;
  /** Content blocks it holds (text parts, tool calls, a tool result) for the look-back; default 1. */
  blocks?: number;
  /**
   * A fixed breakpoint (the system prompt and tool schemas): the caller marks it; explicit-breakpoint rules
   * add the last messages' breakpoints themselves.
   */
  breakpoint?: boolean;
}

/** One request sent to the provider: the ordered prompt, when it was sent (if known) and the tokens it produced. */
export interface ProviderRequest {
  messages: readonly PromptMessage[];
  /** Send time in epoch milliseconds; unknown times are assumed to fall within the cache TTL. */
  atMs?: number;
  completionTokens: number;
}

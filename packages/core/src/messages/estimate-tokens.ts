/**
 * Tokens a summary text is counted as before a tokenizer sees it: one per 3.25 characters, rounded up
 * (paths, ids and code make summaries denser than prose: 3.3 characters a token on the real replays).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.25);
}

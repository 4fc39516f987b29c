import type { PromptMessage } from "./provider-request.ts";

/** The shared head of two prompts: how many leading messages match and the tokens they hold. */
export interface CommonPrefix {
  messages: number;
  tokens: number;
}

/** Two messages are the same for the cache while id, content hash and token count all agree. */
function sameMessage(a: PromptMessage, b: PromptMessage): boolean {
  return a.id === b.id && a.contentHash === b.contentHash && a.tokens === b.tokens;
}

/** The longest run of leading messages that `a` and `b` share. */
export function commonPrefix(a: readonly PromptMessage[], b: readonly PromptMessage[]): CommonPrefix {
  let messages = 0;
  let tokens = 0;
  for (const [i, message] of a.entries()) {
    const other = b[i];
    if (other === undefined || !sameMessage(message, other)) break;
    messages += 1;
    tokens += message.tokens;
  }
  return { messages, tokens };
}

/** Total tokens of a prompt. */
export function promptTokens(messages: readonly PromptMessage[]): number {
  return messages.reduce((sum, message) => sum + message.tokens, 0);
}

import type { Message } from "../messages/message.ts";

/**
 * Framing tokens per message: OpenAI documents 3 (`<|start|>`, the separator and `<|end|>`) plus the
 * role, which is one token in both encodings; so 4. Anthropic does not publish its framing.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Tokens charged per image; images are carried, never decoded, so their size is unknown. 1,600 is about
 * Anthropic's cap (~1.15 megapixels / 750) and above OpenAI's largest high-detail cost (1,105), so budgets
 * err on the safe side.
 */
export const IMAGE_TOKENS = 1600;

/**
 * Tokens a message costs: framing, name, text parts, images, tool call names and arguments, and the
 * tool call id of a tool result. `reasoning` and `metadata` are never sent back, so never counted.
 */
export function countMessageTokens(message: Message, countText: (text: string) => number): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  if (message.name !== undefined) tokens += countText(message.name);
  for (const part of message.content) {
    tokens += part.type === "text" ? countText(part.text) : IMAGE_TOKENS;
  }
  for (const call of message.toolCalls ?? []) {
    tokens += countText(call.name) + countText(call.arguments);
  }
  if (message.toolCallId !== undefined) tokens += countText(message.toolCallId);
  return tokens;
}

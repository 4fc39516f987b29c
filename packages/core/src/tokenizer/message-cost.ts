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
  let tokens = fixedTokens(message);
  for (const text of countedTexts(message)) tokens += countText(text);
  return tokens;
}

/** countMessageTokens with an asynchronous text counter (one text at a time, in the same order). */
export async function countMessageTokensAsync(
  message: Message,
  countText: (text: string) => Promise<number>,
): Promise<number> {
  let tokens = fixedTokens(message);
  for (const text of countedTexts(message)) tokens += await countText(text);
  return tokens;
}

/** The framing and image tokens of a message (what does not depend on the tokenizer). */
function fixedTokens(message: Message): number {
  return MESSAGE_OVERHEAD_TOKENS + IMAGE_TOKENS * message.content.filter((part) => part.type !== "text").length;
}

/** Every text of a message that is sent to the model and so counted. */
function* countedTexts(message: Message): Generator<string> {
  if (message.name !== undefined) yield message.name;
  for (const part of message.content) if (part.type === "text") yield part.text;
  for (const call of message.toolCalls ?? []) {
    yield call.name;
    yield call.arguments;
  }
  if (message.toolCallId !== undefined) yield message.toolCallId;
}

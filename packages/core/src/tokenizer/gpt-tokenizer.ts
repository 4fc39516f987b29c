import type { Encoding } from "../events/event-data.ts";
import type { Message } from "../messages/message.ts";
import type { TokenCounter } from "../ports/token-counter.ts";
import { countMessageTokens } from "./message-cost.ts";

type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;

// An empty disallowed set makes "<|endoftext|>" and friends in user text ordinary text, never an error.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const cache = new Map<Encoding, Promise<TokenCounter>>();

// Each encoding's ranks are a few MB of JS: import only the one asked for, and only when asked.
async function loadCountTokens(encoding: Encoding): Promise<CountTokens> {
  switch (encoding) {
    case "o200k_base":
      return (await import("gpt-tokenizer/encoding/o200k_base")).countTokens;
    case "cl100k_base":
      return (await import("gpt-tokenizer/encoding/cl100k_base")).countTokens;
  }
}

async function build(encoding: Encoding): Promise<TokenCounter> {
  const countTokens = await loadCountTokens(encoding);
  const countText = (text: string): number => countTokens(text, PLAIN_TEXT);
  return {
    encoding,
    countText,
    countMessage: (message: Message) => countMessageTokens(message, countText),
  };
}

/** A gpt-tokenizer TokenCounter for `encoding`, loaded on first use and cached per encoding. */
export function createTokenCounter(encoding: Encoding): Promise<TokenCounter> {
  let counter = cache.get(encoding);
  if (counter === undefined) {
    counter = build(encoding);
    // A failed load is not cached, so a later call can retry.
    counter.catch(() => cache.delete(encoding));
    cache.set(encoding, counter);
  }
  return counter;
}

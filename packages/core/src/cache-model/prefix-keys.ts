import type { PromptMessage } from "./provider-request.ts";

/**
 * Per leading prefix of a prompt (through message i): a key that changes when any message up to i
 * changes (id, content hash or size), the tokens and the content blocks it holds.
 */
export interface PrefixKeys {
  keys: string[];
  tokens: number[];
  blocks: number[];
}

/** The prefix keys of a prompt: a running pair of 32-bit FNV-1a hashes over each message's identity. */
export function prefixKeys(messages: readonly PromptMessage[]): PrefixKeys {
  const out: PrefixKeys = { keys: [], tokens: [], blocks: [] };
  let a = 0x811c9dc5;
  let b = 0x01000193;
  let tokens = 0;
  let blocks = 0;
  for (const message of messages) {
    const text = `${message.id}\u0000${message.contentHash ?? ""}\u0000${message.tokens}\u0001`;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193) >>> 0;
      b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
    }
    tokens += message.tokens;
    blocks += Math.max(1, message.blocks ?? 1);
    out.keys.push(`${a.toString(36)}.${b.toString(36)}.${out.keys.length}`);
    out.tokens.push(tokens);
    out.blocks.push(blocks);
  }
  return out;
}

import { createHash } from "node:crypto";
import { isSummaryEntry, type LiveEntry, type Message, type PromptMessage } from "@palimpsest/core";

const hashes = new WeakMap<Message, string>();

/** sha256 of a message's JSON, memoized per message object (live entries keep their message objects). */
function messageHash(message: Message): string {
  let hash = hashes.get(message);
  if (hash === undefined) {
    hash = createHash("sha256").update(JSON.stringify(message)).digest("hex");
    hashes.set(message, hash);
  }
  return hash;
}

/** Content blocks a message is sent as: its parts, tool calls and reasoning blocks, at least one. */
function blockCount(message: Message): number {
  const reasoning = Array.isArray(message.reasoning) ? message.reasoning.length : 0;
  return Math.max(1, message.content.length + (message.toolCalls?.length ?? 0) + reasoning);
}

/** One live entry as the cache model sees it: id, measured tokens, a hash a stub or summary changes, its blocks. */
export function promptMessage(entry: LiveEntry): PromptMessage {
  return sourcePromptMessage(entry.message, entry.tokens);
}

/** A message as the cache model sees it, with the tokens counted for it (0 when unknown). */
export function sourcePromptMessage(message: Message, tokens: number | undefined): PromptMessage {
  return { id: message.id, tokens: tokens ?? 0, contentHash: messageHash(message), blocks: blockCount(message) };
}

/**
 * The active view as a provider prompt for the cache model; with `summaryBreakpoint` (the profile's cache
 * rule: the agent puts a breakpoint on the last summary) its last summary is marked a breakpoint.
 */
export function promptMessages(live: readonly LiveEntry[], summaryBreakpoint = false): PromptMessage[] {
  const messages = live.map(promptMessage);
  const last = summaryBreakpoint ? live.findLastIndex(isSummaryEntry) : -1;
  if (last >= 0) messages[last] = { ...(messages[last] as PromptMessage), breakpoint: true };
  return messages;
}

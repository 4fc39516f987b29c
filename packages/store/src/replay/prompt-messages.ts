import { createHash } from "node:crypto";
import type { LiveEntry, Message, PromptMessage } from "@palimpsest/core";

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

/** One live entry as the cache model sees it: id, measured tokens, and a hash a stub or summary changes. */
export function promptMessage(entry: LiveEntry): PromptMessage {
  return { id: entry.message.id, tokens: entry.tokens, contentHash: messageHash(entry.message) };
}

/** The active view as a provider prompt for the cache model. */
export function promptMessages(live: readonly LiveEntry[]): PromptMessage[] {
  return live.map(promptMessage);
}

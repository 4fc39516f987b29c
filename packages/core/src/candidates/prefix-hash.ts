import type { Message } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import { sha256 } from "../session/state-codec.ts";

/** What the model sees of a message (no ids of our own, no metadata): the part a prefix hash covers. */
function visible(message: Message): unknown[] {
  return [
    message.role,
    message.content,
    message.toolCalls ?? null,
    message.toolCallId ?? null,
    message.name ?? null,
    message.isError ?? null,
  ];
}

/** SHA-256 of the messages exactly as the model would see them, in order: any change anywhere changes it. */
export function prefixHash(entries: readonly LiveEntry[]): string {
  return sha256(JSON.stringify(entries.map((e) => visible(e.message))));
}

/**
 * SHA-256 of the system prompt: `systemPrompt` when the agent keeps it outside the transcript, else the
 * leading system messages of the view.
 */
export function systemPromptHash(view: readonly LiveEntry[], systemPrompt?: string): string {
  if (systemPrompt !== undefined) return sha256(JSON.stringify(["external", systemPrompt]));
  const leading: unknown[] = [];
  for (const entry of view) {
    if (entry.message.role !== "system") break;
    leading.push(visible(entry.message));
  }
  return sha256(JSON.stringify(["view", leading]));
}

import { ERASED_TOOL_NAME } from "../events/erase-event.ts";
import type { DomainEvent } from "../events/event-types.ts";
import type { Message } from "../messages/message.ts";

/** Characters of a message that are indexed: the rest of a giant tool output is not searchable. */
export const SEARCH_TEXT_LIMIT = 262_144;
/** Distinct terms indexed per message, in the order they first appear. */
export const SEARCH_TERMS_LIMIT = 5_000;
/** The longest term indexed: longer runs (base64, long hashes) are left out. */
export const SEARCH_TERM_LENGTH = 64;

/** What separates terms: anything but a letter or a digit (so paths, commands and identifiers split into their words). */
const SEPARATOR = /[^\p{L}\p{N}]+/u;

/**
 * The distinct terms of `text`, lower-cased, in the order they first appear: its runs of letters and
 * digits, each at most SEARCH_TERM_LENGTH long (longer ones are dropped), at most `limit` of them. Both
 * engines index these terms and match a query's, so they search alike.
 */
export function searchTerms(text: string, limit = SEARCH_TERMS_LIMIT): string[] {
  const terms = new Set<string>();
  for (const word of text.toLowerCase().split(SEPARATOR)) {
    if (word.length === 0 || word.length > SEARCH_TERM_LENGTH) continue;
    terms.add(word);
    if (terms.size >= limit) break;
  }
  return [...terms];
}

/**
 * What of a message is searched: its text parts, its tool calls' names and arguments, and its name. An
 * erased message's tombstone (no text, calls named ERASED_TOOL_NAME) has nothing to search.
 */
export function messageSearchText(message: Message): string {
  const parts: string[] = [];
  if (message.name !== undefined) parts.push(message.name);
  for (const part of message.content) if (part.type === "text") parts.push(part.text);
  for (const call of message.toolCalls ?? []) if (call.name !== ERASED_TOOL_NAME) parts.push(call.name, call.arguments);
  let text = parts.join("\n");
  if (text.length > SEARCH_TEXT_LIMIT) text = text.slice(0, SEARCH_TEXT_LIMIT);
  return text;
}

/**
 * The terms an event is indexed under, joined by spaces, as the stores keep them: a message's
 * (messageSearchText), none for other events; null when there are none.
 */
export function indexedTerms(event: DomainEvent): string | null {
  if (event.type !== "message.appended") return null;
  const terms = searchTerms(messageSearchText(event.data.message));
  return terms.length === 0 ? null : terms.join(" ");
}

import { ERASED_TOOL_NAME } from "../events/erase-event.ts";
import type { DomainEvent } from "../events/event-types.ts";
import type { Message } from "../messages/message.ts";

/** Characters of a message that are indexed: the rest of a giant tool output is not searchable. */
export const SEARCH_TEXT_LIMIT = 262_144;
/** Distinct terms indexed per message, in the order they first appear. */
export const SEARCH_TERMS_LIMIT = 5_000;
/** The longest term indexed: longer runs (base64, long hashes) are left out. */
export const SEARCH_TERM_LENGTH = 64;

/**
 * A compound: runs of letters and digits joined by single `.`, `_` or `-` (a version `3.16.0`, a file
 * name `app.ts`, an identifier `err_quokka_7731`, a model `claude-sonnet-4`); a lone run is one too. A
 * dot no letter, digit or connector comes before starts one (a dotfile or dot-folder: `.env`, `.beads`).
 */
const COMPOUND = /(?:(?<![\p{L}\p{N}._-])\.)?[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*/gu;
/** What joins a compound's words. */
const CONNECTOR = /[._-]/;
/** A number written with its unit attached (`16ms`, `0.7s`, `3x`, `250mib`): the number, then the unit. */
const NUMBER_WITH_UNIT = /^(\p{N}+(?:[._-]\p{N}+)*)(\p{L}+)$/u;

/**
 * A search term: a run of letters and digits, or a compound of them (COMPOUND, a dotfile's leading dot
 * included), at most
 * SEARCH_TERM_LENGTH long. Nothing else (no quote, space, backslash or query operator) can be one.
 */
export const SEARCH_TERM = /^\.?[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*$/u;

/**
 * The distinct terms of `text`, lower-cased, in the order they first appear: each compound whole (when it
 * joins several words, or is a dotfile's name), then its words (runs of letters and digits), so `3.16`,
 * `app.ts` or `.env` is found as such and by its parts; a number with its unit attached is followed by the number and the unit, so
 * `16ms` and `16 ms` share terms; terms longer than SEARCH_TERM_LENGTH are dropped, at most `limit` are
 * kept. Both engines index these terms and match a query's, so they search alike.
 */
export function searchTerms(text: string, limit = SEARCH_TERMS_LIMIT): string[] {
  const terms = new Set<string>();
  const add = (term: string): boolean => {
    if (term.length <= SEARCH_TERM_LENGTH) terms.add(term);
    if (terms.size >= limit) return true;
    const measured = NUMBER_WITH_UNIT.exec(term);
    return measured !== null && (add(measured[1] as string) || add(measured[2] as string));
  };
  for (const [compound] of text.toLowerCase().matchAll(COMPOUND)) {
    if (!CONNECTOR.test(compound)) {
      if (add(compound)) break;
      continue;
    }
    if (add(compound) || compound.split(CONNECTOR).some((word) => word.length > 0 && add(word))) break;
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

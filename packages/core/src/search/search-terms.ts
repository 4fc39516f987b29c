import { ERASED_TOOL_NAME } from "../events/erase-event.ts";
import type { DomainEvent } from "../events/event-types.ts";
import type { Message } from "../messages/message.ts";

// What this file makes of a message is kept by the stores' search indexes, and SQLite's erasure makes it
// again to take a message's terms out of its FTS5 index (sqlite-search.ts forgetSqliteSearch): a change to
// the terms of any text needs a migration that indexes every message again, as 0022 does
// (test/structure/search-terms-pinned.test.ts fails until the pinned digest is updated with one).

/** Characters of a message that are indexed: the rest of a giant tool output is not searchable. */
export const SEARCH_TEXT_LIMIT = 262_144;
/** Distinct terms indexed per message, in the order they first appear. */
export const SEARCH_TERMS_LIMIT = 5_000;
/** The longest term indexed: longer runs (base64, long hashes) are left out. */
export const SEARCH_TERM_LENGTH = 64;

/**
 * A search term: a run of letters and digits, or a compound of them (searchTerms), a dotfile's leading dot
 * included, at most SEARCH_TERM_LENGTH long. Nothing else (no quote, space, backslash or query operator) can
 * be one.
 */
export const SEARCH_TERM = /^\.?[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*$/u;

/**
 * The distinct terms of `text`, lower-cased, in the order they first appear: each compound whole (when it
 * joins several words, or is a dotfile's name), then its words (runs of letters and digits), so `3.16`,
 * `app.ts` or `.env` is found as such and by its parts; a number with its unit attached is followed by the
 * number and the unit, so `16ms` and `16 ms` share terms; terms longer than SEARCH_TERM_LENGTH are dropped, at
 * most `limit` are kept. Both engines index these terms and match a query's, so they search alike.
 *
 * A compound is runs of letters and digits (\p{L}, \p{N}) joined by single `.`, `_` or `-` (a version
 * `3.16.0`, a file name `app.ts`, an identifier `err_quokka_7731`, a model `claude-sonnet-4`); a lone run is
 * one too. A dot that no letter, digit or connector comes before starts one (a dotfile or dot-folder: `.env`,
 * `.beads`). As a regular expression (flags `gu`) on the lower-cased text, they are
 * `(?:(?<![\p{L}\p{N}._-])\.)?[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*`, which is what this function ran until a
 * scanner over the text's code units replaced it, to be faster: the stores already hold terms made by it, so
 * packages/core/test/search/search-terms-scanner.test.ts checks the two make the very same terms.
 */
export function searchTerms(text: string, limit = SEARCH_TERMS_LIMIT): string[] {
  const lower = text.toLowerCase();
  const terms = new Set<string>();
  /** Adds `lower[from, to)` when short enough; true once the limit is reached. */
  const addOne = (from: number, to: number): boolean => {
    if (to - from <= SEARCH_TERM_LENGTH) terms.add(lower.slice(from, to));
    return terms.size >= limit;
  };
  /** addOne, then the number and the unit of a number with its unit attached. */
  const add = (from: number, to: number): boolean => {
    if (addOne(from, to)) return true;
    const unit = unitStart(lower, from, to);
    return unit >= 0 && (addOne(from, unit) || addOne(unit, to));
  };
  for (let i = 0; i < lower.length; ) {
    // Find the next compound: skip what starts none (the fast path: ASCII that is no letter, digit or connector).
    const unit = lower.charCodeAt(i);
    if (unit < 0x80 && UNIT_CLASSES[unit] === OTHER) {
      i += 1;
      continue;
    }
    const dotted = unit === DOT;
    if (dotted ? joinsBefore(lower, i) || classAt(lower, i + 1) < LETTER : classAt(lower, i) < LETTER) {
      i += 1;
      continue;
    }
    // Its runs, joined by single connectors.
    const start = i;
    let end = runEnd(lower, dotted ? i + 1 : i);
    let joined = dotted;
    while (classAt(lower, end) === CONNECTOR && classAt(lower, end + 1) >= LETTER) {
      end = runEnd(lower, end + 1);
      joined = true;
    }
    i = end;
    if (add(start, end)) break;
    if (!joined) continue;
    // Then its words: the runs between its connectors (after a dotfile's dot).
    let word = dotted ? start + 1 : start;
    let full = false;
    for (let j = word; j <= end && !full; j++) {
      if (j < end && classAt(lower, j) !== CONNECTOR) continue;
      full = add(word, j);
      word = j + 1;
    }
    if (full) break;
  }
  return [...terms];
}

/** A code point's class, as the scanner sees it: a letter (\p{L}), a number (\p{N}), a connector, or other. */
const OTHER = 1;
const CONNECTOR = 2;
const LETTER = 3;
const NUMBER = 4;
/** The dot that starts a dotfile's name. */
const DOT = 0x2e;

/**
 * Each UTF-16 code unit's class, learned on first sight (0: not yet). Surrogates are OTHER: a lone one is
 * neither a letter nor a number, and a pair is looked up whole (ASTRAL_CLASSES).
 */
const UNIT_CLASSES = new Uint8Array(0x10000).fill(OTHER, 0xd800, 0xe000);

/** Each astral code point's class (a surrogate pair's), learned on first sight. */
const ASTRAL_CLASSES = new Map<number, number>();
const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;

/** The class of a code point that is not a connector, as the `u` flag's \p{L} and \p{N} see it. */
function learnClass(codePoint: number): number {
  const char = String.fromCodePoint(codePoint);
  return IS_LETTER.test(char) ? LETTER : IS_NUMBER.test(char) ? NUMBER : OTHER;
}
for (let ascii = 0; ascii < 0x80; ascii++) UNIT_CLASSES[ascii] = learnClass(ascii);
for (const connector of "._-") UNIT_CLASSES[connector.charCodeAt(0)] = CONNECTOR;

/** The class of the code point at `i` of `s` (a surrogate pair's as one); OTHER past its end. */
function classAt(s: string, i: number): number {
  const unit = s.charCodeAt(i);
  if (unit < 0x80) return UNIT_CLASSES[unit] as number;
  if (i >= s.length) return OTHER;
  let known = UNIT_CLASSES[unit] as number;
  if (known === 0) {
    known = learnClass(unit);
    UNIT_CLASSES[unit] = known;
    return known;
  }
  if (!isLeadSurrogate(unit)) return known;
  const trail = s.charCodeAt(i + 1);
  if (!isTrailSurrogate(trail)) return OTHER;
  const codePoint = ((unit - 0xd800) << 10) + (trail - 0xdc00) + 0x10000;
  let astral = ASTRAL_CLASSES.get(codePoint);
  if (astral === undefined) {
    astral = learnClass(codePoint);
    ASTRAL_CLASSES.set(codePoint, astral);
  }
  return astral;
}

/** Whether a UTF-16 code unit is the first of a surrogate pair. */
function isLeadSurrogate(unit: number): boolean {
  return (unit & 0xfc00) === 0xd800;
}

/** Whether a UTF-16 code unit is the second of a surrogate pair. */
function isTrailSurrogate(unit: number): boolean {
  return (unit & 0xfc00) === 0xdc00;
}

/** How many code units the letter or digit at `i` of `s` takes: 2 for a surrogate pair. */
function widthAt(s: string, i: number): number {
  return isLeadSurrogate(s.charCodeAt(i)) ? 2 : 1;
}

/** Where the run of letters and digits starting at `i` of `s` ends (`i` when there is none). */
function runEnd(s: string, i: number): number {
  for (;;) {
    const unit = s.charCodeAt(i);
    if (unit < 0x80 ? (UNIT_CLASSES[unit] as number) < LETTER : classAt(s, i) < LETTER) return i;
    i += isLeadSurrogate(unit) ? 2 : 1;
  }
}

/**
 * Whether a letter, digit or connector comes right before `i` of `s`, so that a dot there starts no dotfile
 * (the lookbehind `(?<![\p{L}\p{N}._-])`).
 */
function joinsBefore(s: string, i: number): boolean {
  if (i === 0) return false;
  const pair = i >= 2 && isTrailSurrogate(s.charCodeAt(i - 1)) && isLeadSurrogate(s.charCodeAt(i - 2));
  return classAt(s, i - (pair ? 2 : 1)) !== OTHER;
}

/**
 * Where the unit starts when `s[from, to)` is a number with its unit attached (`16ms`, `0.7s`, `3x`, `250mib`:
 * digits joined by connectors, then letters to the end, `^(\p{N}+(?:[._-]\p{N}+)*)(\p{L}+)$`), else -1.
 */
function unitStart(s: string, from: number, to: number): number {
  let afterDigit = false;
  for (let i = from; i < to; ) {
    const kind = classAt(s, i);
    if (kind === LETTER) {
      if (!afterDigit) return -1;
      const unit = i;
      while (i < to && classAt(s, i) === LETTER) i += widthAt(s, i);
      return i === to ? unit : -1;
    }
    if (kind === OTHER || (kind === CONNECTOR && !afterDigit)) return -1;
    afterDigit = kind === NUMBER;
    i += widthAt(s, i);
  }
  return -1;
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

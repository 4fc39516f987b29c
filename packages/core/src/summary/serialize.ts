import { parseJsonObject } from "../input/json-object.ts";
import { capText } from "../messages/cut.ts";
import { errorNames } from "../messages/error-names.ts";
import { measuredNumbers } from "../messages/measured-numbers.ts";
import type { ContentPart, Message } from "../messages/message.ts";
import { messageText } from "../messages/message.ts";
import { redactSecrets } from "./redact.ts";

/** Per-message character caps applied before a summarizer reads a message (head + tail kept). */
export interface SummaryCaps {
  /** Characters kept of one tool output. */
  toolOutputChars: number;
  /** Characters kept of one tool call's arguments. */
  toolArgumentChars: number;
  /** Characters kept of any other message's text. */
  messageChars: number;
}

/** Default caps: 2,000 characters per tool output and per tool call's arguments, 6,000 per other message. */
export const DEFAULT_SUMMARY_CAPS: SummaryCaps = {
  toolOutputChars: 2_000,
  toolArgumentChars: 2_000,
  messageChars: 6_000,
};

/** Redacts, then caps (so a cut never leaves half a secret unrecognisable). */
function clean(text: string, max: number): string {
  return capRedacted(redactSecrets(text), max);
}

/**
 * capText of redacted text, cut where the cut leaves nothing a second redaction would change (a cut right
 * after `KEY=`, whose marker would pass for the value; a cut inside `[REDACTED]`): serializeForSummary then
 * stays safe to apply again. Each try keeps a little less.
 */
function capRedacted(redacted: string, max: number): string {
  for (let room = max; room > max / 2; room -= 8) {
    const kept = capText(redacted, room);
    if (redactSecrets(kept) === kept) return kept;
  }
  return capText(redacted, max);
}

const OMITTED_NAMES = "\n[error names in the omitted part: ";
const OMITTED_NUMBERS = "\n[measured numbers in the omitted part: ";

/** `items` as a note headed `label`, as many as fit in `room` characters ("" if none fits). */
function listWithin(label: string, items: readonly string[], room: number): string {
  let list = "";
  for (const item of items) {
    const next = list === "" ? item : `${list}, ${item}`;
    if (label.length + next.length + 1 > room) break;
    list = next;
  }
  return list === "" ? "" : `${label}${list}]`;
}

/**
 * What the cut of `text` to `kept` removed that a summary should keep, as notes of at most `room`
 * characters in all ("" if nothing): the error names `kept` no longer shows, then its measured numbers.
 */
function omittedNote(text: string, kept: string, room: number): string {
  const names = listWithin(
    OMITTED_NAMES,
    errorNames(text).filter((n) => !kept.includes(n)),
    room,
  );
  const shown = new Set(measuredNumbers(kept));
  const numbers = listWithin(
    OMITTED_NUMBERS,
    measuredNumbers(text).filter((n) => !shown.has(n)),
    room - names.length,
  );
  return `${names}${numbers}`;
}

/**
 * A tool output redacted and capped; the error names and measured numbers the cut removed are listed
 * after it, within the cap. What is kept shrinks until the notes of what it omits fit beside it: keeping
 * less may omit more (an error name the full cut kept, whose note then leaves the numbers no room).
 */
function cleanToolOutput(text: string, max: number): string {
  const redacted = redactSecrets(text);
  if (redacted.length <= max) return redacted;
  const room = Math.min(300, Math.floor(max / 4));
  let kept = capRedacted(redacted, max);
  let reserve = 0;
  let note = omittedNote(redacted, kept, room);
  // The reserve only grows, and a note is at most `room` long: this ends.
  while (note.length > reserve) {
    reserve = note.length;
    kept = capRedacted(redacted, max - reserve);
    note = omittedNote(redacted, kept, room);
  }
  return `${kept}${omittedNote(redacted, kept, max - kept.length)}`;
}

/** A string value cleanArguments never cuts shorter than this (shorter ones are left whole). */
const MIN_CUT_CHARS = 100;

/**
 * A tool call's arguments redacted and capped, still JSON when they were a JSON object: written out as plain
 * JSON first (so a secret hidden by an escape, `https:\/\/user:pw@…`, is seen by the redaction), then, over
 * the cap, its longest string values (at any depth) are cut in their middle (capText) until it fits, so a
 * summarizer still reads every field (a shell command's first line, a file's path) where a cut of the text
 * would leave JSON no parser reads. Other arguments, or an object of many short strings, are cut as text.
 */
function cleanArguments(text: string, max: number): string {
  const parsed = parseJsonObject(text);
  const redacted = redactSecrets(parsed === undefined ? text : JSON.stringify(parsed));
  if (redacted.length <= max) return redacted;
  const args = parseJsonObject(redacted);
  if (args === undefined) return capRedacted(redacted, max);
  for (;;) {
    const json = JSON.stringify(args);
    // Done when it fits and a second redaction changes nothing (a cut right after `KEY=` would: see capRedacted).
    if (json.length <= max && redactSecrets(json) === json) return json;
    const longest = longestString(args);
    if (longest === undefined || longest.value.length <= MIN_CUT_CHARS) return capRedacted(redacted, max);
    // Escapes make the JSON longer than its strings: cut the excess, and a margin for them, off the longest.
    const excess = Math.max(0, json.length - max);
    longest.replace(capText(longest.value, Math.max(MIN_CUT_CHARS, longest.value.length - excess - 50)));
  }
}

/** The longest string anywhere in `value` (objects' values and arrays' items), with a way to replace it. */
function longestString(value: unknown): { value: string; replace: (next: string) => void } | undefined {
  let best: { value: string; replace: (next: string) => void } | undefined;
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const entries: [string | number, unknown][] = Array.isArray(node) ? [...node.entries()] : Object.entries(node);
    for (const [key, child] of entries) {
      if (typeof child === "string") {
        if (best === undefined || child.length > best.value.length) {
          // defineProperty: a key `__proto__` JSON.parse made is an own property, and stays one.
          const replace = (next: string) => {
            Object.defineProperty(node, key, { value: next, writable: true, enumerable: true, configurable: true });
          };
          best = { value: child, replace };
        }
      } else visit(child);
    }
  };
  visit(value);
  return best;
}

/**
 * Prepares messages for a summarizer: secrets redacted, long texts capped head + tail (a tool output's cut
 * error names and measured numbers listed after it), images reduced to a placeholder, opaque reasoning and
 * metadata dropped (but the importer's `orphanToolResult` flag, which isUserRequest reads). Safe to apply
 * again: nothing more is redacted or cut.
 */
export function serializeForSummary(messages: readonly Message[], caps: SummaryCaps = DEFAULT_SUMMARY_CAPS): Message[] {
  return messages.map((message) => {
    const max = message.role === "tool" ? caps.toolOutputChars : caps.messageChars;
    const raw = messageText(message);
    const text = message.role === "tool" ? cleanToolOutput(raw, max) : clean(raw, max);
    const images = message.content.filter((p) => p.type === "image").length;
    const content: ContentPart[] = [];
    if (text.length > 0) content.push({ type: "text", text });
    if (images > 0) content.push({ type: "text", text: `[${images} image${images === 1 ? "" : "s"} omitted]` });
    const out: Message = { id: message.id, role: message.role, content };
    if (message.name !== undefined) out.name = redactSecrets(message.name);
    if (message.toolCallId !== undefined) out.toolCallId = message.toolCallId;
    if (message.isError !== undefined) out.isError = message.isError;
    // The one flag kept of the metadata: an orphan tool result in the user's role is not a request.
    if (message.metadata?.orphanToolResult === true) out.metadata = { orphanToolResult: true };
    if (message.toolCalls !== undefined) {
      out.toolCalls = message.toolCalls.map((call) => ({
        id: call.id,
        name: redactSecrets(call.name),
        arguments: cleanArguments(call.arguments, caps.toolArgumentChars),
      }));
    }
    return out;
  });
}

/** Renders serialized messages as the plain-text transcript a model reads: user messages with their ids, tool names beside their results. */
export function renderTranscript(messages: readonly Message[]): string {
  const toolNames = new Map<string, string>();
  const blocks: string[] = [];
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) toolNames.set(call.id, call.name);
    const text = messageText(message);
    if (message.role === "tool") {
      const tool = toolNames.get(message.toolCallId ?? "") ?? message.name ?? "tool";
      blocks.push(`[tool result: ${tool}${message.isError === true ? ", error" : ""}]\n${text}`);
      continue;
    }
    const calls = (message.toolCalls ?? []).map((c) => `[tool call: ${c.name}] ${c.arguments}`);
    const role = message.role === "user" ? `[user · ${message.id}]` : `[${message.role}]`;
    blocks.push([role, text, ...calls].filter((s) => s.length > 0).join("\n"));
  }
  return blocks.join("\n\n");
}

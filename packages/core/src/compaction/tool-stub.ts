import { type Message, messageText, type ToolCall } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import { safePrefix } from "./safe-cut.ts";

const ARG_VALUE_CHARS = 40;
const ARG_TOTAL_CHARS = 100;

/** A short, one-line summary of a tool call's JSON arguments: `path="src/a.ts", limit=20`. */
export function summarizeArguments(args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return clip(oneLine(args), ARG_TOTAL_CHARS);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return clip(oneLine(JSON.stringify(parsed) ?? ""), ARG_TOTAL_CHARS);
  }
  const pairs = Object.entries(parsed).map(
    ([key, value]) => `${key}=${clip(oneLine(JSON.stringify(value) ?? ""), ARG_VALUE_CHARS)}`,
  );
  return clip(pairs.join(", "), ARG_TOTAL_CHARS);
}

/** What ran and how it ended, in one line: `shell(cmd="ls") → error, 1,234 chars / 300 tokens`. */
export function describeToolRun(result: Message, call: ToolCall | undefined, tokens: number): string {
  const name = call?.name ?? result.name ?? "tool";
  const args = call === undefined ? "" : summarizeArguments(call.arguments);
  const outcome = result.isError === true ? "error" : "ok";
  const chars = messageText(result).length;
  return `${name}(${args}) → ${outcome}, ${chars.toLocaleString("en-US")} chars / ${tokens.toLocaleString("en-US")} tokens`;
}

/**
 * A stub tool result standing for `result`: same tool call id (so the pair stays whole), one line of text.
 * Keeps `name` and `isError` so exports still say which tool ran and whether it failed.
 */
export function stubMessage(id: string, result: Message, text: string): Message {
  const stub: Message = { id, role: "tool", content: [{ type: "text", text }] };
  if (result.toolCallId !== undefined) stub.toolCallId = result.toolCallId;
  if (result.name !== undefined) stub.name = result.name;
  if (result.isError !== undefined) stub.isError = result.isError;
  return stub;
}

const DUPLICATE_PREFIX = "[duplicate output pruned] ";
const DUPLICATE_REFERENCE = "; identical to the later result of call ";

/** The text of a stub for an output identical to the later result `reference` (its tool call id, else message id). */
export function duplicateStubText(run: string, reference: string): string {
  return `${DUPLICATE_PREFIX}${run}${DUPLICATE_REFERENCE}${reference}`;
}

/** The later result a duplicate stub points at (its tool call id, else message id); undefined for other messages. */
export function duplicateReference(message: Message): string | undefined {
  const text = messageText(message);
  if (message.role !== "tool" || !text.startsWith(DUPLICATE_PREFIX)) return undefined;
  const at = text.lastIndexOf(DUPLICATE_REFERENCE);
  return at < 0 ? undefined : text.slice(at + DUPLICATE_REFERENCE.length);
}

/**
 * Ids of the duplicate stubs in `view` whose referenced result is not live and whole (absent, or itself
 * a stub or summary): a pointer with no full copy left to read. Empty for a sound view.
 */
export function danglingDuplicateStubs(view: readonly LiveEntry[]): string[] {
  const whole = new Set<string>();
  for (const { message, placedBy } of view) {
    if (message.role === "tool" && placedBy === undefined) whole.add(message.toolCallId ?? message.id);
  }
  return view.flatMap(({ message, placedBy }) => {
    const reference = placedBy?.kind === "stub" ? duplicateReference(message) : undefined;
    return reference === undefined || whole.has(reference) ? [] : [message.id];
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${safePrefix(text, max - 1)}…`;
}

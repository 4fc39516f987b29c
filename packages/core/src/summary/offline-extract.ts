import type { Message, ToolCall } from "../messages/message.ts";
import { messageText } from "../messages/message.ts";
import {
  extractArgumentPaths,
  extractCommits,
  extractErrorNames,
  extractPaths,
  extractPullRequests,
} from "./extract.ts";
import { capText } from "./serialize.ts";

/** What the offline summarizer pulls out of a span of messages, each list in first-seen order. */
export interface Extraction {
  userMessages: string[];
  actions: string[];
  errors: string[];
  files: string[];
  index: string[];
  /** The last assistant text, or "" when the span has none. */
  activeState: string;
}

const USER_MESSAGE_CHARS = 1_000;
const ACTIVE_STATE_CHARS = 1_500;
const ERROR_LINE_CHARS = 240;
const ARGUMENT_CHARS = 160;
/** A line that reports an error: `TypeError: …`, `error: …`, `Error TS2345: …`, `FAILED …`. */
const ERROR_LINE = /(?:\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b|\berror\b|\bfailed\b|\bE[A-Z]{3,10}\b).*[:!]/i;

/** A tool call's arguments in one short line: `key=value` pairs for JSON objects, else the capped text. */
function shortArguments(args: string): string {
  let line = args.replace(/\s+/g, " ").trim();
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      line = Object.entries(parsed)
        .map(([k, v]) => `${k}=${capText(typeof v === "string" ? v : JSON.stringify(v), 80).replace(/\s+/g, " ")}`)
        .join(" ");
    }
  } catch {
    // Not JSON: keep the flattened text.
  }
  return capText(line, ARGUMENT_CHARS).replace(/\s+/g, " ");
}

/** The first non-empty line of `text`, capped. */
function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return capText(line.trim(), ERROR_LINE_CHARS);
}

/** How a call ended, from its result message (or the lack of one). */
function outcome(call: ToolCall, results: ReadonlyMap<string, Message>): string {
  const result = results.get(call.id);
  if (result === undefined) return "no result";
  if (result.isError !== true) return "ok";
  const line = firstLine(messageText(result));
  return line === "" ? "error" : `error: ${line}`;
}

/** Error lines found in a tool output: the first line of an error result, else lines that name an error. */
function errorLines(message: Message): string[] {
  const text = messageText(message);
  if (message.isError === true) return [firstLine(text)].filter((l) => l !== "");
  return text
    .split("\n")
    .filter((l) => ERROR_LINE.test(l))
    .slice(0, 3)
    .map((l) => capText(l.trim(), ERROR_LINE_CHARS));
}

/** Extracts requests, actions, errors, files, ids and the latest state from serialized messages. */
export function extract(messages: readonly Message[]): Extraction {
  const results = new Map<string, Message>();
  for (const m of messages) if (m.role === "tool" && m.toolCallId !== undefined) results.set(m.toolCallId, m);
  const out: Extraction = { userMessages: [], actions: [], errors: [], files: [], index: [], activeState: "" };
  const scanned: string[] = [];
  for (const message of messages) {
    const text = messageText(message);
    if (message.role === "user" && text.trim() !== "") out.userMessages.push(capText(text.trim(), USER_MESSAGE_CHARS));
    if (message.role === "assistant" && text.trim() !== "") out.activeState = capText(text.trim(), ACTIVE_STATE_CHARS);
    if (message.role === "tool") out.errors.push(...errorLines(message));
    for (const call of message.toolCalls ?? []) {
      out.actions.push(`${call.name}(${shortArguments(call.arguments)}) → ${outcome(call, results)}`);
      out.files.push(...extractArgumentPaths(call.arguments));
      scanned.push(call.arguments);
    }
    out.files.push(...extractPaths(text));
    scanned.push(text);
  }
  const all = scanned.join("\n");
  out.index = [
    ...extractCommits(all).map((c) => `commit ${c}`),
    ...extractPullRequests(all).map((p) => `PR/issue ${p}`),
    ...extractErrorNames(all).map((e) => `error ${e}`),
  ];
  out.files = [...new Set(out.files)];
  out.errors = [...new Set(out.errors)];
  return out;
}

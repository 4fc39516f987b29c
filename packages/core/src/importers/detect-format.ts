import { ValidationError } from "../errors.ts";
import { isObject, type JsonObject } from "./json-fields.ts";
import { inputPath, tryParseJson } from "./json-input.ts";
import { IMPORT_FORMATS, type ImportFormat } from "./types.ts";

const CLAUDE_LINE_TYPES = new Set([
  "user",
  "assistant",
  "system",
  "summary",
  "progress",
  "file-history-snapshot",
  "queue-operation",
]);

/**
 * Recognizes a transcript's format from its first JSON line (JSONL formats) or, failing that, the whole
 * document; a `.traj` file name means SWE-agent. Throws a ValidationError when nothing matches.
 */
export function detectFormat(text: string, fileName?: string): ImportFormat {
  if (fileName?.endsWith(".traj") === true) return "swe-agent";
  const firstLine = text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"));
  const format = formatOfLine(tryParseJson(firstLine)) ?? formatOfDocument(tryParseJson(text));
  if (format === undefined) {
    throw new ValidationError(`${inputPath(fileName)}: unrecognized transcript format`, [
      `the formats read are ${IMPORT_FORMATS.join(", ")}; if the file is one of them, say which with --format <format>`,
    ]);
  }
  return format;
}

/** The format a whole JSON document looks like (an array of chat messages, of tau-bench entries, …), if any. */
export function documentFormat(text: string): ImportFormat | undefined {
  return formatOfDocument(tryParseJson(text));
}

function formatOfLine(value: unknown): ImportFormat | undefined {
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.history)) return "trajectory" in value ? "swe-agent" : "openhands";
  if (typeof value.type === "string" && CLAUDE_LINE_TYPES.has(value.type) && !("role" in value)) return "claude-code";
  if (typeof value.role === "string" || Array.isArray(value.messages)) return "openai";
  return undefined;
}

function formatOfDocument(value: unknown): ImportFormat | undefined {
  if (Array.isArray(value)) {
    const first: unknown = value[0];
    if (isObject(first) && Array.isArray((first as JsonObject).traj)) return "tau-bench";
    return first === undefined || (isObject(first) && typeof first.role === "string") ? "openai" : undefined;
  }
  return formatOfLine(value);
}

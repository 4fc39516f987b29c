import { ValidationError } from "../errors.ts";
import { isObject } from "../input/json-object.ts";
import { IMPORT_FORMATS, type ImportFormat, TRANSCRIPT_FORMATS } from "./formats.ts";
import { inputPath, tryParseJson } from "./json-input.ts";
import type { FormatRecognizer } from "./transcript-format.ts";

/**
 * Recognizes a transcript's format (each format's recognizer, TRANSCRIPT_FORMATS): by its file name (a
 * `.traj` file is SWE-agent's), else its first JSON line (JSONL formats), else the whole document. Throws
 * a ValidationError when nothing matches.
 */
export function detectFormat(text: string, fileName?: string): ImportFormat {
  const byName = fileName === undefined ? undefined : recognized((r) => r.fileName?.(fileName) === true);
  const firstLine = text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"));
  const format = byName ?? formatOf(tryParseJson(firstLine), false) ?? documentFormat(text);
  if (format === undefined) {
    throw new ValidationError(`${inputPath(fileName)}: unrecognized transcript format`, [
      `the formats read are ${IMPORT_FORMATS.join(", ")}; if the file is one of them, say which with --format <format>`,
    ]);
  }
  return format;
}

/** The format a whole JSON document looks like (an array of chat messages, of tau-bench entries, …), if any. */
export function documentFormat(text: string): ImportFormat | undefined {
  return formatOf(tryParseJson(text), true);
}

/** The format that recognizes a JSON value: an object, or (for a whole document) an array. */
function formatOf(value: unknown, document: boolean): ImportFormat | undefined {
  if (Array.isArray(value)) return document ? recognized((r) => r.array?.(value) === true) : undefined;
  return isObject(value) ? recognized((r) => r.object?.(value) === true) : undefined;
}

/** The format whose recognizer passes `test` (at most one does: recognizers are exclusive). */
function recognized(test: (recognize: FormatRecognizer) => boolean): ImportFormat | undefined {
  return TRANSCRIPT_FORMATS.find((f) => test(f.recognize))?.name;
}

import { ValidationError } from "../errors.ts";

/** One parsed JSONL line with its 1-based line number (blank lines are skipped). */
export interface JsonLine {
  value: unknown;
  line: number;
}

/** "file:line" (or just the file) for error paths; "input" when the file has no name. */
export function inputPath(fileName: string | undefined, line?: number): string {
  const file = fileName ?? "input";
  return line === undefined ? file : `${file}:${line}`;
}

/** Parses JSONL; a malformed line throws a ValidationError whose path names the file and line. */
export function parseJsonLines(
  text: string,
  fileName: string | undefined,
  onProgress?: (done: number, total: number) => void,
): JsonLine[] {
  const lines = text.split("\n");
  const out: JsonLine[] = [];
  lines.forEach((raw, index) => {
    const source = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (source.trim().length > 0) out.push({ value: parseJsonText(source, fileName, index + 1), line: index + 1 });
    onProgress?.(index + 1, lines.length);
  });
  return out;
}

/** Parses one JSON document (or one line of it, when `line` is given) into a ValidationError on failure. */
export function parseJsonText(text: string, fileName: string | undefined, line?: number): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    const path = inputPath(fileName, line);
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new ValidationError(`${path}: malformed JSON${line === undefined ? "" : ` on line ${line}`}`, [reason], {
      cause,
      path,
    });
  }
}

/** A ValidationError about a well-formed but unexpected value at `path` (see inputPath). */
export function invalidInput(path: string, message: string): ValidationError {
  return new ValidationError(`${path}: ${message}`, [message], { path });
}

/** The parsed JSON, or undefined when the text is not one JSON document (used for sniffing shapes). */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

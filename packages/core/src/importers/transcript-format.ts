import type { JsonObject } from "./json-fields.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/**
 * How a format is recognized. Detection asks every format (see detectFormat): first by file name, then
 * the first line's JSON object, then the whole document's (an object, or an array). Formats' recognizers
 * are exclusive: at most one takes any value, so the formats' order does not matter.
 */
export interface FormatRecognizer {
  fileName?(name: string): boolean;
  /** A JSON object: a JSON-lines file's first line, or a whole document. */
  object?(value: JsonObject): boolean;
  /** A whole document that is one JSON array. */
  array?(value: readonly unknown[]): boolean;
}

/**
 * One transcript format as the importers, the CLI and replays know it: its name, its help line, how it
 * is recognized, its parser, and what it implies. A new format is its parser's file (with this entry)
 * and one line in TRANSCRIPT_FORMATS.
 */
export interface TranscriptFormat {
  readonly name: string;
  /** One line for the CLI's help. */
  readonly summary: string;
  /** The file name endings its files usually have (`.jsonl`), for finding transcripts in a folder. */
  readonly extensions: readonly string[];
  /** JSON lines only (one JSON object per line): a JSON document over several lines is refused saying so. */
  readonly jsonLinesOnly?: boolean;
  /** The provider whose message format it is written in (a session's default profile); none when it runs any model. */
  readonly provider?: string;
  readonly recognize: FormatRecognizer;
  parse(text: string, options: ParseOptions): ImportedSession[];
}

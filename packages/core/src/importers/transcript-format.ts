import type { ImportedSession, ParseOptions } from "./types.ts";

/**
 * How a format is recognized. Detection asks every format (see detectFormat): first by file name, then
 * the first line's JSON object, then the whole document's (an object, or an array). Formats' recognizers
 * are exclusive: at most one takes any value, so the formats' order does not matter.
 */
export interface FormatRecognizer {
  fileName?(name: string): boolean;
  /** A JSON object: a JSON-lines file's first line, or a whole document. */
  object?(value: Record<string, unknown>): boolean;
  /** A whole document that is one JSON array. */
  array?(value: readonly unknown[]): boolean;
}

/**
 * One transcript format as the importers, the CLI and replays know it: its name, its help line, how it
 * is recognized, its parser, and what it implies. A new format is its parser's file (with this entry)
 * and one line in TRANSCRIPT_FORMATS. `N`: its name, a literal for the built-in formats (ImportFormat).
 */
export interface TranscriptFormat<N extends string = string> {
  readonly name: N;
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

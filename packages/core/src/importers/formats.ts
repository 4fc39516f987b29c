import { ValidationError } from "../errors.ts";
import { claudeCodeFormat } from "./claude-code.ts";
import { miniSweAgentFormat } from "./mini-swe-agent.ts";
import { openAiFormat } from "./openai-chat.ts";
import { openHandsFormat } from "./openhands.ts";
import { sweAgentFormat } from "./swe-agent.ts";
import { tauBenchFormat } from "./tau-bench.ts";
import type { TranscriptFormat } from "./transcript-format.ts";

/**
 * Every transcript format `import`, `replay` and `eval` read, in the order they are listed to users. A
 * new format is its parser's file (with its TranscriptFormat entry) and one line here; detection, the
 * CLI's choices and help, the JSON-lines check and the default profile all read this list.
 */
export const TRANSCRIPT_FORMATS = [
  openAiFormat,
  claudeCodeFormat,
  openHandsFormat,
  sweAgentFormat,
  miniSweAgentFormat,
  tauBenchFormat,
] as const satisfies readonly TranscriptFormat[];

/** The transcript formats Palimpsest can import. */
export type ImportFormat = (typeof TRANSCRIPT_FORMATS)[number]["name"];

/** The formats' names, in TRANSCRIPT_FORMATS order. */
export const IMPORT_FORMATS: readonly ImportFormat[] = TRANSCRIPT_FORMATS.map((f) => f.name);

/** The file name endings of every format's files (`.jsonl`, `.json`, `.traj`), each once, in TRANSCRIPT_FORMATS order. */
export const TRANSCRIPT_EXTENSIONS: readonly string[] = [...new Set(TRANSCRIPT_FORMATS.flatMap((f) => f.extensions))];

/** The format named `name`; ValidationError listing the names for any other. */
export function formatNamed(name: string): TranscriptFormat {
  const format = TRANSCRIPT_FORMATS.find((f) => f.name === name);
  if (format === undefined) {
    throw new ValidationError(`unknown transcript format ${name}`, [`format: one of ${IMPORT_FORMATS.join(", ")}`]);
  }
  return format;
}

export { parseClaudeCode } from "./claude-code.ts";
export { IncrementalClaudeCode, type ThreadItems } from "./claude-code-incremental.ts";
export { detectFormat, documentFormat } from "./detect-format.ts";
export {
  formatNamed,
  IMPORT_FORMATS,
  type ImportFormat,
  TRANSCRIPT_EXTENSIONS,
  TRANSCRIPT_FORMATS,
} from "./formats.ts";
export { parseMiniSweAgent } from "./mini-swe-agent.ts";
export { parseOpenAiChat } from "./openai-chat.ts";
export { parseOpenHands } from "./openhands.ts";
export { parseTranscript } from "./parse-transcript.ts";
export { parseSweAgent } from "./swe-agent.ts";
export { parseTauBench } from "./tau-bench.ts";
export { NO_RESULT_TEXT, TranscriptBuilder } from "./transcript-builder.ts";
export type { FormatRecognizer, TranscriptFormat } from "./transcript-format.ts";
export type {
  ImportedSession,
  ImportItem,
  ImportRepairs,
  ParseOptions,
} from "./types.ts";

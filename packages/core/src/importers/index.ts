export { parseClaudeCode } from "./claude-code.ts";
export { IncrementalClaudeCode, type ThreadItems } from "./claude-code-incremental.ts";
export { detectFormat, documentFormat } from "./detect-format.ts";
export { parseOpenAiChat } from "./openai-chat.ts";
export { parseOpenHands } from "./openhands.ts";
export { parseTranscript } from "./parse-transcript.ts";
export { parseSweAgent } from "./swe-agent.ts";
export { parseTauBench } from "./tau-bench.ts";
export { NO_RESULT_TEXT, TranscriptBuilder } from "./transcript-builder.ts";
export {
  IMPORT_FORMATS,
  type ImportedSession,
  type ImportFormat,
  type ImportItem,
  type ImportRepairs,
  type ParseOptions,
} from "./types.ts";

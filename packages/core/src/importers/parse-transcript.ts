import { InvariantViolation } from "../errors.ts";
import { checkToolPairs, checkUniqueIds } from "../invariants/tool-pairs.ts";
import type { Message } from "../messages/message.ts";
import { parseClaudeCode } from "./claude-code.ts";
import { detectFormat } from "./detect-format.ts";
import { parseOpenAiChat } from "./openai-chat.ts";
import { parseOpenHands } from "./openhands.ts";
import { parseSweAgent } from "./swe-agent.ts";
import { parseTauBench } from "./tau-bench.ts";
import type { ImportedSession, ImportFormat, ParseOptions } from "./types.ts";

const PARSERS: Record<ImportFormat, (text: string, options: ParseOptions) => ImportedSession[]> = {
  openai: parseOpenAiChat,
  "claude-code": parseClaudeCode,
  openhands: parseOpenHands,
  "swe-agent": parseSweAgent,
  "tau-bench": parseTauBench,
};

/**
 * Parses a transcript file's text into sessions (format detected unless given). Pure: the caller reads
 * the file. Each session's items are checked against the tool-pair and unique-id rules before return.
 */
export function parseTranscript(text: string, options: ParseOptions = {}): ImportedSession[] {
  const format = options.format ?? detectFormat(text, options.fileName);
  const sessions = PARSERS[format](text, options);
  for (const session of sessions) assertImportable(session);
  return sessions;
}

/** Throws an InvariantViolation if a session's messages (compaction summaries included) break a view rule. */
function assertImportable(session: ImportedSession): void {
  const messages: Message[] = session.items.map((item) => (item.kind === "message" ? item.message : item.summary));
  const violation = [...checkUniqueIds(messages), ...checkToolPairs(messages)][0];
  if (violation === undefined) return;
  const rule = violation.rule === "duplicate-message" ? "duplicate-message-id" : violation.rule;
  throw new InvariantViolation(
    rule === "tool-result-without-call" ? "tool-result-without-live-call" : rule,
    `imported session ${session.externalId}: ${violation.rule} at ${violation.messageId} (${violation.detail})`,
    { sessionId: session.externalId, ids: [violation.messageId] },
  );
}

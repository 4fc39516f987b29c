import { InvariantViolation, ValidationError } from "../errors.ts";
import { checkToolPairs, checkUniqueIds } from "../invariants/tool-pairs.ts";
import type { Message } from "../messages/message.ts";
import { detectFormat, documentFormat } from "./detect-format.ts";
import { formatNamed, IMPORT_FORMATS, type ImportFormat } from "./formats.ts";
import { inputPath, tryParseJson } from "./json-input.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/**
 * Parses a transcript file's text into sessions (format detected unless given). Pure: the caller reads
 * the file. Each session's items are checked against the tool-pair and unique-id rules before return.
 */
export function parseTranscript(text: string, options: ParseOptions = {}): ImportedSession[] {
  const format = formatNamed(options.format ?? detectFormat(text, options.fileName));
  if (options.format !== undefined && format.jsonLinesOnly === true) {
    refuseJsonDocument(text, options.format, options.fileName);
  }
  const sessions = format.parse(text, options);
  for (const session of sessions) assertImportable(session);
  return sessions;
}

/**
 * A forced JSON-lines format given one JSON document spread over several lines (a pretty-printed array
 * or object): refused saying so and which format the document looks like, instead of the first line's
 * "malformed JSON".
 */
function refuseJsonDocument(text: string, format: ImportFormat, fileName: string | undefined): void {
  const newline = text.indexOf("\n");
  if (newline === -1 || tryParseJson(text.slice(0, newline)) !== undefined || tryParseJson(text) === undefined) return;
  const looks = documentFormat(text);
  throw new ValidationError(
    `${inputPath(fileName)}: one JSON document over several lines, not JSON lines: --format ${format} expects one JSON object per line`,
    [
      looks === undefined
        ? `no format reads this document; the formats are ${IMPORT_FORMATS.join(", ")}`
        : `it looks like ${looks}: try --format ${looks}, or leave --format out to detect it`,
    ],
    { path: inputPath(fileName) },
  );
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

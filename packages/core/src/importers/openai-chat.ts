import { definedFields } from "../defined-fields.ts";
import { isObject } from "../input/json-object.ts";
import { isClaudeCodeLine } from "./claude-code.ts";
import { fileStem, textDigest } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonLines, tryParseJson } from "./json-input.ts";
import { isMiniSweAgentTrajectory } from "./mini-swe-agent.ts";
import { openAiSession } from "./openai-messages.ts";
import { listField, read, recordOf, textField } from "./source-fields.ts";
import type { TranscriptFormat } from "./transcript-format.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/** An OpenAI chat document: its messages and, when present, its id, title and model. */
const ChatDocument = recordOf({ id: textField, title: textField, model: textField, messages: listField });

/**
 * Parses an OpenAI chat transcript: a JSON array of messages, an object with `messages` (its `id`,
 * `title` and `model` are used when present), or JSONL with one message per line. The session id is the
 * object's `id`, else the file name, else a digest of the text.
 */
export function parseOpenAiChat(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  const whole = tryParseJson(text);
  const fallbackId = () => fileStem(fileName) ?? `openai-${textDigest(text)}`;
  if (Array.isArray(whole) || (isObject(whole) && Array.isArray(whole.messages))) {
    const doc = read(ChatDocument, whole);
    const messages = Array.isArray(whole) ? whole : doc.messages;
    const key = Array.isArray(whole) ? "" : ".messages";
    const { title, model } = doc;
    return [
      openAiSession(messages, {
        externalId: doc.id ?? fallbackId(),
        format: "openai",
        ...definedFields({ title, model }),
        pathOf: (i) => `${inputPath(fileName)}${key}[${i}]`,
        ...definedFields({ onProgress }),
      }),
    ];
  }
  if (whole !== undefined && !isObject(whole)) throw invalidInput(inputPath(fileName), "not an OpenAI chat transcript");
  const lines = parseJsonLines(text, fileName, onProgress);
  return [
    openAiSession(
      lines.map((l) => l.value),
      {
        externalId: fallbackId(),
        format: "openai",
        pathOf: (i) => inputPath(fileName, lines[i]?.line),
      },
    ),
  ];
}

/** OpenAI chat: messages with a `role` (a JSON array, `{messages: […]}`, or one message per line). */
export const openAiFormat: TranscriptFormat<"openai"> = {
  name: "openai",
  summary: "OpenAI chat messages: a JSON array, {messages: [...]}, or one message per line",
  extensions: [".jsonl", ".json"],
  provider: "openai",
  recognize: {
    // Not an agent trajectory (history, or mini-swe-agent's messages), nor a Claude Code line that happens
    // to carry `messages`.
    object: (value) =>
      !Array.isArray(value.history) &&
      (typeof value.role === "string" ||
        (Array.isArray(value.messages) && !isClaudeCodeLine(value) && !isMiniSweAgentTrajectory(value))),
    array: ([first]) =>
      first === undefined || (isObject(first) && typeof first.role === "string" && !Array.isArray(first.traj)),
  },
  parse: parseOpenAiChat,
};

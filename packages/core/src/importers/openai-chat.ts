import { arr, fileStem, isObject, str, textDigest } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonLines, tryParseJson } from "./json-input.ts";
import { openAiSession } from "./openai-messages.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/**
 * Parses an OpenAI chat transcript: a JSON array of messages, an object with `messages` (its `id`,
 * `title` and `model` are used when present), or JSONL with one message per line. The session id is the
 * object's `id`, else the file name, else a digest of the text.
 */
export function parseOpenAiChat(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  const whole = tryParseJson(text);
  const externalId = (doc: unknown) =>
    (isObject(doc) ? str(doc.id) : undefined) ?? fileStem(fileName) ?? `openai-${textDigest(text)}`;
  if (Array.isArray(whole) || (isObject(whole) && Array.isArray(whole.messages))) {
    const messages = Array.isArray(whole) ? whole : arr(whole.messages);
    const key = Array.isArray(whole) ? "" : ".messages";
    const title = isObject(whole) ? str(whole.title) : undefined;
    const model = isObject(whole) ? str(whole.model) : undefined;
    return [
      openAiSession(messages, {
        externalId: externalId(whole),
        format: "openai",
        ...(title === undefined ? {} : { title }),
        ...(model === undefined ? {} : { model }),
        pathOf: (i) => `${inputPath(fileName)}${key}[${i}]`,
        ...(onProgress === undefined ? {} : { onProgress }),
      }),
    ];
  }
  if (whole !== undefined && !isObject(whole)) throw invalidInput(inputPath(fileName), "not an OpenAI chat transcript");
  const lines = parseJsonLines(text, fileName, onProgress);
  return [
    openAiSession(
      lines.map((l) => l.value),
      {
        externalId: externalId(undefined),
        format: "openai",
        pathOf: (i) => inputPath(fileName, lines[i]?.line),
      },
    ),
  ];
}

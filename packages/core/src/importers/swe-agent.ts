import { arr, fileStem, isObject, obj, str, textDigest } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonText, tryParseJson } from "./json-input.ts";
import { openAiSession } from "./openai-messages.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/**
 * Parses a SWE-agent `.traj` file: its `history[]` is OpenAI chat already (tool messages carry
 * `tool_call_ids`). The session id is the file name, else a digest of the text; the model comes from
 * `replay_config.agent.model.name`.
 */
export function parseSweAgent(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  const doc = parseJsonText(text, fileName);
  if (!isObject(doc) || !Array.isArray(doc.history)) {
    throw invalidInput(inputPath(fileName), "a SWE-agent trajectory needs a history array");
  }
  const config = typeof doc.replay_config === "string" ? tryParseJson(doc.replay_config) : doc.replay_config;
  const agent = obj(obj(config).agent);
  const model = str(obj(agent.model).name);
  const title = str(agent.name);
  return [
    openAiSession(arr(doc.history), {
      externalId: fileStem(fileName) ?? `swe-agent-${textDigest(text)}`,
      format: "swe-agent",
      ...(title === undefined ? {} : { title }),
      ...(model === undefined ? {} : { model }),
      pathOf: (i) => `${inputPath(fileName)}.history[${i}]`,
      ...(onProgress === undefined ? {} : { onProgress }),
    }),
  ];
}

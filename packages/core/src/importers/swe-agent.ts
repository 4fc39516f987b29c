import { definedFields } from "../defined-fields.ts";
import { isObject } from "../input/json-object.ts";
import { fileStem, textDigest } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonText, tryParseJson } from "./json-input.ts";
import { openAiSession } from "./openai-messages.ts";
import { listField, rawField, read, recordOf, textField } from "./source-fields.ts";
import type { TranscriptFormat } from "./transcript-format.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/** The replay config of a trajectory (a JSON string or the object): the agent's name and model. */
const ReplayConfig = recordOf({ agent: recordOf({ name: textField, model: recordOf({ name: textField }) }) });

/** A SWE-agent trajectory: its OpenAI-chat history and replay config. */
const Trajectory = recordOf({ history: listField, replay_config: rawField });

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
  const trajectory = read(Trajectory, doc);
  const raw = trajectory.replay_config;
  const { agent } = read(ReplayConfig, typeof raw === "string" ? tryParseJson(raw) : raw);
  const model = agent.model.name;
  const title = agent.name;
  return [
    openAiSession(trajectory.history, {
      externalId: fileStem(fileName) ?? `swe-agent-${textDigest(text)}`,
      format: "swe-agent",
      ...definedFields({ title, model }),
      pathOf: (i) => `${inputPath(fileName)}.history[${i}]`,
      ...definedFields({ onProgress }),
    }),
  ];
}

/** A SWE-agent trajectory: a `.traj` file, one JSON document with `trajectory` and `history`. */
export const sweAgentFormat: TranscriptFormat<"swe-agent"> = {
  name: "swe-agent",
  summary: "a SWE-agent trajectory (a .traj file: one JSON document with its history)",
  extensions: [".traj"],
  recognize: {
    fileName: (name) => name.endsWith(".traj"),
    object: (value) => Array.isArray(value.history) && "trajectory" in value,
  },
  parse: parseSweAgent,
};

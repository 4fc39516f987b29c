import { definedFields } from "../defined-fields.ts";
import { isObject, type JsonObject } from "../input/json-object.ts";
import { fileStem, textDigest } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonText } from "./json-input.ts";
import { type MessageDetails, openAiSession } from "./openai-messages.ts";
import { OpenAiUsage, usageOf } from "./openai-usage.ts";
import { listField, numberField, read, recordOf, textField } from "./source-fields.ts";
import type { TranscriptFormat } from "./transcript-format.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/** A mini-swe-agent trajectory: its messages, the SWE-bench instance it ran on and the model it ran. */
const Trajectory = recordOf({
  messages: listField,
  instance_id: textField,
  info: recordOf({ config: recordOf({ model: recordOf({ model_name: textField }) }) }),
});

/**
 * What mini-swe-agent keeps on a message beside OpenAI chat: its time in epoch seconds (`extra.timestamp`
 * since format 1.1, `timestamp` before) and, on a model's reply, the provider's response with its usage.
 */
const MessageExtras = recordOf({
  role: textField,
  timestamp: numberField,
  extra: recordOf({ timestamp: numberField, response: recordOf({ usage: OpenAiUsage }) }),
});

/** The role of the message mini-swe-agent ends a run with: its exit status and submission, never sent to the model. */
const EXIT_ROLE = "exit";

/** True for a mini-swe-agent trajectory: `trajectory_format` names it (`mini-swe-agent-1`, `mini-swe-agent-1.1`). */
export function isMiniSweAgentTrajectory(value: JsonObject): boolean {
  return (
    typeof value.trajectory_format === "string" &&
    value.trajectory_format.startsWith("mini-swe-agent") &&
    Array.isArray(value.messages)
  );
}

/**
 * Parses a mini-swe-agent trajectory (`*.traj.json`: one JSON document). Its `messages` are OpenAI chat
 * (tool calls since format 1.1, actions in the text before); the `exit` message that ends a run (its exit
 * status and submission, also in `info`) is not part of the conversation and is left out; an `exit` message
 * anywhere else is refused. Each message keeps its time, and a model's reply the usage of its response. The
 * session id is the SWE-bench `instance_id`, else the file name, else a digest of the text; the model is
 * `info.config.model.model_name`.
 */
export function parseMiniSweAgent(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  const doc = parseJsonText(text, fileName);
  if (!isObject(doc) || !Array.isArray(doc.messages)) {
    throw invalidInput(inputPath(fileName), "a mini-swe-agent trajectory needs a messages array");
  }
  const trajectory = read(Trajectory, doc);
  const pathOf = (i: number) => `${inputPath(fileName)}.messages[${i}]`;
  const exits = trajectory.messages.flatMap((m, i) => (read(MessageExtras, m).role === EXIT_ROLE ? [i] : []));
  const last = trajectory.messages.length - 1;
  const early = exits.find((i) => i !== last);
  if (early !== undefined) {
    throw invalidInput(pathOf(early), "an exit message ends a mini-swe-agent run: only the last message may be one");
  }
  const messages = exits.length === 0 ? trajectory.messages : trajectory.messages.slice(0, last);
  const model = trajectory.info.config.model.model_name;
  const externalId =
    // An empty instance_id names nothing: the file's name then, as when there is none.
    trajectory.instance_id || (fileStem(fileName)?.replace(/\.traj$/, "") ?? `mini-swe-agent-${textDigest(text)}`);
  return [
    openAiSession(messages, {
      externalId,
      format: "mini-swe-agent",
      ...definedFields({ model }),
      pathOf,
      detailsOf,
      ...definedFields({ onProgress }),
    }),
  ];
}

/** A message's time and its response's usage, from what mini-swe-agent keeps beside it. */
function detailsOf(raw: unknown): MessageDetails {
  const extras = read(MessageExtras, raw);
  const seconds = extras.extra.timestamp ?? extras.timestamp;
  const occurredAt = seconds !== undefined && Number.isFinite(seconds) ? isoTime(seconds) : undefined;
  const usage = usageOf(extras.extra.response.usage);
  return { ...definedFields({ occurredAt }), ...definedFields({ usage }) };
}

/** Epoch seconds as ISO; undefined when out of Date's range. */
function isoTime(seconds: number): string | undefined {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A mini-swe-agent trajectory: one JSON document with its messages, `trajectory_format` mini-swe-agent-…. */
export const miniSweAgentFormat: TranscriptFormat<"mini-swe-agent"> = {
  name: "mini-swe-agent",
  summary: "a mini-swe-agent trajectory (a .traj.json file: one JSON document with its messages)",
  extensions: [".json"],
  recognize: { object: isMiniSweAgentTrajectory },
  parse: parseMiniSweAgent,
};

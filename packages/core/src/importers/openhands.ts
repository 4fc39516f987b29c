import type { z } from "zod";
import { definedFields } from "../defined-fields.ts";
import { isObject } from "../input/json-object.ts";
import type { Message } from "../messages/message.ts";
import { inputPath, invalidInput, parseJsonLines } from "./json-input.ts";
import { contentParts, toolCall } from "./openai-messages.ts";
import { OpenAiUsage, usageOf } from "./openai-usage.ts";
import { listField, numberField, rawField, read, recordOf, textField } from "./source-fields.ts";
import { TranscriptBuilder } from "./transcript-builder.ts";
import type { TranscriptFormat } from "./transcript-format.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/** An OpenAI-style model response kept on an OpenHands action. */
const ModelResponse = recordOf({
  id: textField,
  model: textField,
  choices: listField,
  usage: OpenAiUsage,
});
type ModelResponse = z.output<typeof ModelResponse>;

/** The assistant message of a model response's first choice. */
const ResponseChoice = recordOf({
  message: recordOf({ content: rawField, tool_calls: listField, reasoning_content: rawField }),
});

/** One event of an instance's history, the fields the importer reads. */
const HistoryEvent = recordOf({
  id: numberField,
  observation: textField,
  action: textField,
  source: textField,
  content: textField,
  message: textField,
  timestamp: textField,
  /** The action's arguments, kept whole: a call rebuilt from them serializes them as they were. */
  args: rawField,
  tool_call_metadata: recordOf({
    tool_call_id: textField,
    function_name: textField,
    model_response: rawField,
  }),
});
type HistoryEvent = z.output<typeof HistoryEvent>;

/** One instance (one line) of OpenHands output. */
const Instance = recordOf({
  instance_id: textField,
  history: listField,
  metadata: recordOf({ llm_config: recordOf({ model: textField }) }),
});

/** The `content` of an action's arguments, when it is text. */
const ActionArgs = recordOf({ content: textField });

/**
 * Parses OpenHands evaluation output (JSONL, one instance per line) into one session per instance.
 * From `history[]`: the system prompt and user messages; each agent action's
 * `tool_call_metadata.model_response` becomes one assistant message (actions sharing a response id are
 * one message); observations with a `tool_call_id` become tool results. Events outside the chat (recall,
 * state changes, error observations with no tool call) are skipped, as OpenHands' own prompt omits them.
 */
export function parseOpenHands(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  return parseJsonLines(text, fileName, onProgress).map(({ value, line }) => {
    const path = inputPath(fileName, line);
    if (!isObject(value) || !Array.isArray(value.history))
      throw invalidInput(path, "an instance needs a history array");
    const instance = read(Instance, value);
    const externalId = instance.instance_id || `line-${line}`;
    const builder = new TranscriptBuilder(externalId);
    const responses = new Set<string>();
    let model = instance.metadata.llm_config.model;
    instance.history.forEach((event, index) => {
      const e = read(HistoryEvent, event);
      const id = `${externalId}:${e.id ?? index}`;
      const eventPath = `${path}.history[${index}]`;
      const metadata = e.tool_call_metadata;
      const at = eventTime(e.timestamp);
      if (e.observation !== undefined) {
        const toolCallId = metadata.tool_call_id;
        if (toolCallId === undefined) return;
        const name = metadata.function_name;
        builder.add(
          {
            id,
            role: "tool",
            content: contentParts(e.content ?? e.message ?? "", eventPath),
            toolCallId,
            ...definedFields({ name }),
            ...(e.observation === "error" ? { isError: true } : {}),
          },
          undefined,
          at,
        );
        return;
      }
      const { action } = e;
      const content = contentParts(read(ActionArgs, e.args).content ?? e.message ?? "", eventPath);
      if (action === "system") builder.add({ id, role: "system", content }, undefined, at);
      else if (action === "message" && e.source === "user") builder.add({ id, role: "user", content }, undefined, at);
      else if (isObject(metadata.model_response)) {
        const response = read(ModelResponse, metadata.model_response);
        const responseId = response.id ?? id;
        if (responses.has(responseId)) return;
        responses.add(responseId);
        model ??= response.model;
        builder.add(responseMessage(response, id, eventPath), usageOf(response.usage), at);
      } else if (action === "message" && e.source === "agent")
        builder.add({ id, role: "assistant", content }, undefined, at);
      else if (metadata.tool_call_id !== undefined) builder.add(bareCall(e, id, content, eventPath), undefined, at);
    });
    return builder.finish({
      externalId,
      format: "openhands",
      title: externalId,
      ...definedFields({ model }),
    });
  });
}

/** An event's `timestamp` as ISO (a time without a zone is read as UTC), or undefined when unreadable. */
function eventTime(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const zoned = /(?:[zZ]|[+-]\d\d:?\d\d)$/.test(raw) ? raw : `${raw}Z`;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function responseMessage(response: ModelResponse, id: string, path: string): Message {
  const raw = read(ResponseChoice, response.choices[0]).message;
  const message: Message = { id, role: "assistant", content: contentParts(raw.content, path) };
  const calls = raw.tool_calls.map((c, k) => toolCall(c, `${path}.model_response.tool_calls[${k}]`));
  if (calls.length > 0) message.toolCalls = calls;
  const reasoning = raw.reasoning_content;
  if (reasoning !== undefined && reasoning !== null) message.reasoning = reasoning;
  return message;
}

/** An action that kept its tool call id but not the model response: the call rebuilt from its args. */
function bareCall(event: HistoryEvent, id: string, content: Message["content"], path: string) {
  const { tool_call_id: callId, function_name: name } = event.tool_call_metadata;
  const args = isObject(event.args) ? event.args : {};
  const call = toolCall({ id: callId, function: { name, arguments: args } }, path);
  return { id, role: "assistant" as const, content, toolCalls: [call] };
}

/** OpenHands evaluation output: one instance per line, each with its `history` of events. */
export const openHandsFormat: TranscriptFormat<"openhands"> = {
  name: "openhands",
  summary: "OpenHands evaluation output (JSON lines, one instance with its history per line)",
  extensions: [".jsonl"],
  jsonLinesOnly: true,
  recognize: { object: (value) => Array.isArray(value.history) && !("trajectory" in value) },
  parse: parseOpenHands,
};

import type { Usage } from "../events/event-data.ts";
import type { Message } from "../messages/message.ts";
import { arr, isObject, type JsonObject, num, obj, str } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonLines } from "./json-input.ts";
import { contentParts, toolCall } from "./openai-messages.ts";
import { TranscriptBuilder } from "./transcript-builder.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

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
    const externalId = str(value.instance_id) ?? `line-${line}`;
    const builder = new TranscriptBuilder(externalId);
    const responses = new Set<string>();
    let model = str(obj(obj(value.metadata).llm_config).model);
    arr(value.history).forEach((event, index) => {
      const e = obj(event);
      const id = `${externalId}:${num(e.id) ?? index}`;
      const eventPath = `${path}.history[${index}]`;
      const metadata = obj(e.tool_call_metadata);
      if (str(e.observation) !== undefined) {
        const toolCallId = str(metadata.tool_call_id);
        if (toolCallId === undefined) return;
        const name = str(metadata.function_name);
        builder.add({
          id,
          role: "tool",
          content: contentParts(str(e.content) ?? str(e.message) ?? "", eventPath),
          toolCallId,
          ...(name === undefined ? {} : { name }),
          ...(e.observation === "error" ? { isError: true } : {}),
        });
        return;
      }
      const action = str(e.action);
      const content = contentParts(str(obj(e.args).content) ?? str(e.message) ?? "", eventPath);
      if (action === "system") builder.add({ id, role: "system", content });
      else if (action === "message" && e.source === "user") builder.add({ id, role: "user", content });
      else if (isObject(metadata.model_response)) {
        const response = metadata.model_response;
        const responseId = str(response.id) ?? id;
        if (responses.has(responseId)) return;
        responses.add(responseId);
        model ??= str(response.model);
        builder.add(responseMessage(response, id, eventPath), usageOf(obj(response.usage)));
      } else if (action === "message" && e.source === "agent") builder.add({ id, role: "assistant", content });
      else if (str(metadata.tool_call_id) !== undefined) builder.add(bareCall(e, metadata, id, content, eventPath));
    });
    return builder.finish({
      externalId,
      format: "openhands",
      title: externalId,
      ...(model === undefined ? {} : { model }),
    });
  });
}

function responseMessage(response: JsonObject, id: string, path: string): Message {
  const choice = obj(arr(response.choices)[0]);
  const raw = obj(choice.message);
  const message: Message = { id, role: "assistant", content: contentParts(raw.content, path) };
  const calls = arr(raw.tool_calls).map((c, k) => toolCall(c, `${path}.model_response.tool_calls[${k}]`));
  if (calls.length > 0) message.toolCalls = calls;
  const reasoning = raw.reasoning_content;
  if (reasoning !== undefined && reasoning !== null) message.reasoning = reasoning;
  return message;
}

/** An action that kept its tool call id but not the model response: the call rebuilt from its args. */
function bareCall(event: JsonObject, metadata: JsonObject, id: string, content: Message["content"], path: string) {
  const call = toolCall(
    { id: metadata.tool_call_id, function: { name: metadata.function_name, arguments: obj(event.args) } },
    path,
  );
  return { id, role: "assistant" as const, content, toolCalls: [call] };
}

function usageOf(raw: JsonObject): Usage | undefined {
  const usage: Usage = {};
  const prompt = num(raw.prompt_tokens);
  const completion = num(raw.completion_tokens);
  const cached = num(obj(raw.prompt_tokens_details).cached_tokens);
  if (prompt !== undefined) usage.promptTokens = prompt;
  if (completion !== undefined) usage.completionTokens = completion;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

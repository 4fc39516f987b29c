import { z } from "zod";
import { definedFields } from "../defined-fields.ts";
import type { Usage } from "../events/event-data.ts";
import { isObject } from "../input/json-object.ts";
import type { ContentPart, Message, ToolCall } from "../messages/message.ts";
import type { ImportFormat } from "./formats.ts";
import { invalidInput } from "./json-input.ts";
import { listField, rawField, read, recordOf, textField } from "./source-fields.ts";
import { TranscriptBuilder } from "./transcript-builder.ts";
import type { ImportedSession } from "./types.ts";

/** An OpenAI chat message, the fields the importer reads. */
const OpenAiMessage = recordOf({
  role: rawField,
  content: rawField,
  name: textField,
  tool_calls: listField,
  function_call: rawField,
  tool_call_id: textField,
  tool_call_ids: listField,
  reasoning_content: rawField,
  reasoning: rawField,
});
type OpenAiMessage = z.output<typeof OpenAiMessage>;

/** An OpenAI tool call: `arguments` is a JSON string (or, in some exports, the object itself). */
const OpenAiToolCall = recordOf({ id: textField, function: recordOf({ name: textField, arguments: rawField }) });

/** One OpenAI content part; `image_url` is a URL string or `{ url }`. */
const OpenAiPart = recordOf({
  type: rawField,
  text: textField,
  refusal: textField,
  image_url: z
    .union([z.string(), z.object({ url: z.string() }).transform((o) => o.url)])
    .optional()
    .catch(undefined),
});

/** Where an OpenAI-form message list came from: its session fields and how to name an element's position. */
export interface OpenAiSource {
  externalId: string;
  format: ImportFormat;
  title?: string;
  model?: string;
  /** The error path of element `index` (e.g. "file.jsonl:12" or "file.json[3]"). */
  pathOf: (index: number) => string;
  /** What a source keeps beside a message (its time, the usage of the response an assistant message is). */
  detailsOf?: (raw: unknown) => MessageDetails;
  onProgress?: (done: number, total: number) => void;
}

/** A source message's time (ISO) and, for an assistant message, the usage of the request that wrote it. */
export interface MessageDetails {
  occurredAt?: string;
  usage?: Usage;
}

/** Builds one session from OpenAI chat messages (also the shape of SWE-agent history and tau-bench traj). */
export function openAiSession(messages: readonly unknown[], source: OpenAiSource): ImportedSession {
  const builder = new TranscriptBuilder(source.externalId);
  const legacyCalls = new Map<string, string>();
  messages.forEach((raw, index) => {
    const id = `${source.externalId}:${index}`;
    const { occurredAt, usage } = source.detailsOf?.(raw) ?? {};
    for (const message of openAiMessage(raw, id, source.pathOf(index), legacyCalls)) {
      builder.add(message, message.role === "assistant" ? usage : undefined, occurredAt);
    }
    source.onProgress?.(index + 1, messages.length);
  });
  const { externalId, format, title, model } = source;
  return builder.finish({
    externalId,
    format,
    ...definedFields({ title, model }),
  });
}

/**
 * Maps one OpenAI chat message to source messages: `developer` becomes system; legacy `function_call`
 * becomes a tool call whose `function` role reply is its result; a SWE-agent tool message answering
 * several `tool_call_ids` becomes one result per id. Unknown roles or parts throw a ValidationError.
 */
function openAiMessage(raw: unknown, id: string, path: string, legacyCalls: Map<string, string>): Message[] {
  if (!isObject(raw)) throw invalidInput(path, "a message must be an object");
  const message = read(OpenAiMessage, raw);
  const { role, name } = message;
  const content = contentParts(message.content, path);
  const named = name === undefined ? {} : { name };
  switch (role) {
    case "system":
    case "user":
      return [{ id, role, content, ...named }];
    case "developer":
      return [{ id, role: "system", content, ...named, metadata: { sourceRole: "developer" } }];
    case "assistant":
      return [{ ...assistantMessage(message, id, content, path, legacyCalls), ...named }];
    case "tool":
      return toolCallIds(message, path).map((toolCallId, k) => ({
        id: k === 0 ? id : `${id}:${k}`,
        role: "tool",
        content,
        toolCallId,
        ...named,
      }));
    case "function": {
      const toolCallId = legacyCalls.get(name ?? "") ?? `function:${name ?? "unnamed"}`;
      return [{ id, role: "tool", content, toolCallId, ...named }];
    }
    default:
      throw invalidInput(path, `unknown role ${JSON.stringify(role)}`);
  }
}

function assistantMessage(
  raw: OpenAiMessage,
  id: string,
  content: ContentPart[],
  path: string,
  legacyCalls: Map<string, string>,
): Message {
  const toolCalls = raw.tool_calls.map((call, k) => toolCall(call, `${path}.tool_calls[${k}]`));
  if (isObject(raw.function_call)) {
    const call = toolCall({ id: `${id}:function_call`, function: raw.function_call }, `${path}.function_call`);
    legacyCalls.set(call.name, call.id);
    toolCalls.push(call);
  }
  const message: Message = { id, role: "assistant", content };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  const reasoning = raw.reasoning_content ?? raw.reasoning;
  if (reasoning !== undefined && reasoning !== null) message.reasoning = reasoning;
  return message;
}

/** An OpenAI tool call; object arguments are serialized, string arguments kept exactly. */
export function toolCall(raw: unknown, path: string): ToolCall {
  const { id, function: fn } = read(OpenAiToolCall, raw);
  const { name } = fn;
  if (id === undefined || id.length === 0) throw invalidInput(path, "a tool call needs an id");
  if (name === undefined || name.length === 0) throw invalidInput(path, "a tool call needs a function name");
  const args = fn.arguments;
  return { id, name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) };
}

function toolCallIds(raw: OpenAiMessage, path: string): string[] {
  const single = raw.tool_call_id;
  if (single !== undefined && single.length > 0) return [single];
  const many = raw.tool_call_ids.filter((v): v is string => typeof v === "string" && v.length > 0);
  if (many.length > 0) return many;
  throw invalidInput(path, "a tool message needs tool_call_id");
}

/** OpenAI content (a string, null, or text / image_url / refusal parts) as Palimpsest content parts. */
export function contentParts(raw: unknown, path: string): ContentPart[] {
  if (raw === null || raw === undefined || raw === "") return [];
  if (typeof raw === "string") return [{ type: "text", text: raw }];
  if (!Array.isArray(raw)) throw invalidInput(path, "content must be a string or an array of parts");
  return raw.map((part, k): ContentPart => {
    const p = read(OpenAiPart, part);
    const type = p.type;
    if (type === "text" || type === "input_text" || type === "output_text") return { type: "text", text: p.text ?? "" };
    if (type === "refusal") return { type: "text", text: p.refusal ?? "" };
    if (type === "image_url" && p.image_url !== undefined) return { type: "image", url: p.image_url };
    throw invalidInput(`${path}.content[${k}]`, `unsupported content part ${JSON.stringify(type)}`);
  });
}

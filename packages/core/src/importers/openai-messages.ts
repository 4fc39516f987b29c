import type { ContentPart, Message, ToolCall } from "../messages/message.ts";
import { arr, isObject, type JsonObject, obj, str } from "./json-fields.ts";
import { invalidInput } from "./json-input.ts";
import { TranscriptBuilder } from "./transcript-builder.ts";
import type { ImportedSession, ImportFormat } from "./types.ts";

/** Where an OpenAI-form message list came from: its session fields and how to name an element's position. */
export interface OpenAiSource {
  externalId: string;
  format: ImportFormat;
  title?: string;
  model?: string;
  /** The error path of element `index` (e.g. "file.jsonl:12" or "file.json[3]"). */
  pathOf: (index: number) => string;
  onProgress?: (done: number, total: number) => void;
}

/** Builds one session from OpenAI chat messages (also the shape of SWE-agent history and tau-bench traj). */
export function openAiSession(messages: readonly unknown[], source: OpenAiSource): ImportedSession {
  const builder = new TranscriptBuilder(source.externalId);
  const legacyCalls = new Map<string, string>();
  messages.forEach((raw, index) => {
    const id = `${source.externalId}:${index}`;
    for (const message of openAiMessage(raw, id, source.pathOf(index), legacyCalls)) builder.add(message);
    source.onProgress?.(index + 1, messages.length);
  });
  const { externalId, format, title, model } = source;
  return builder.finish({
    externalId,
    format,
    ...(title === undefined ? {} : { title }),
    ...(model === undefined ? {} : { model }),
  });
}

/**
 * Maps one OpenAI chat message to source messages: `developer` becomes system; legacy `function_call`
 * becomes a tool call whose `function` role reply is its result; a SWE-agent tool message answering
 * several `tool_call_ids` becomes one result per id. Unknown roles or parts throw a ValidationError.
 */
function openAiMessage(raw: unknown, id: string, path: string, legacyCalls: Map<string, string>): Message[] {
  if (!isObject(raw)) throw invalidInput(path, "a message must be an object");
  const role = raw.role;
  const content = contentParts(raw.content, path);
  const name = str(raw.name);
  const named = name === undefined ? {} : { name };
  switch (role) {
    case "system":
    case "user":
      return [{ id, role, content, ...named }];
    case "developer":
      return [{ id, role: "system", content, ...named, metadata: { sourceRole: "developer" } }];
    case "assistant":
      return [{ ...assistantMessage(raw, id, content, path, legacyCalls), ...named }];
    case "tool":
      return toolCallIds(raw, path).map((toolCallId, k) => ({
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
  raw: JsonObject,
  id: string,
  content: ContentPart[],
  path: string,
  legacyCalls: Map<string, string>,
): Message {
  const toolCalls = arr(raw.tool_calls).map((call, k) => toolCall(call, `${path}.tool_calls[${k}]`));
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
  const call = obj(raw);
  const fn = obj(call.function);
  const id = str(call.id);
  const name = str(fn.name);
  if (id === undefined || id.length === 0) throw invalidInput(path, "a tool call needs an id");
  if (name === undefined || name.length === 0) throw invalidInput(path, "a tool call needs a function name");
  const args = fn.arguments;
  return { id, name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) };
}

function toolCallIds(raw: JsonObject, path: string): string[] {
  const single = str(raw.tool_call_id);
  if (single !== undefined && single.length > 0) return [single];
  const many = arr(raw.tool_call_ids).filter((v): v is string => typeof v === "string" && v.length > 0);
  if (many.length > 0) return many;
  throw invalidInput(path, "a tool message needs tool_call_id");
}

/** OpenAI content (a string, null, or text / image_url / refusal parts) as Palimpsest content parts. */
export function contentParts(raw: unknown, path: string): ContentPart[] {
  if (raw === null || raw === undefined || raw === "") return [];
  if (typeof raw === "string") return [{ type: "text", text: raw }];
  if (!Array.isArray(raw)) throw invalidInput(path, "content must be a string or an array of parts");
  return raw.map((part, k): ContentPart => {
    const p = obj(part);
    const type = p.type;
    if (type === "text" || type === "input_text" || type === "output_text")
      return { type: "text", text: str(p.text) ?? "" };
    if (type === "refusal") return { type: "text", text: str(p.refusal) ?? "" };
    if (type === "image_url") {
      const url = str(p.image_url) ?? str(obj(p.image_url).url);
      if (url !== undefined) return { type: "image", url };
    }
    throw invalidInput(`${path}.content[${k}]`, `unsupported content part ${JSON.stringify(type)}`);
  });
}

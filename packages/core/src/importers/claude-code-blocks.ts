import type { z } from "zod";
import { definedFields } from "../defined-fields.ts";
import type { Usage } from "../events/event-data.ts";
import type { ContentPart, Message } from "../messages/message.ts";
import { invalidInput } from "./json-input.ts";
import { countField, flagField, listField, rawField, read, recordOf, textField } from "./source-fields.ts";

/** A content block of a Claude message, the fields the importer reads. */
const ClaudeBlock = recordOf({
  type: textField,
  text: textField,
  source: recordOf({ media_type: textField, data: textField, url: textField }),
  id: textField,
  name: textField,
  input: rawField,
  tool_use_id: textField,
  content: rawField,
  is_error: flagField,
});

/** Claude's usage object on an assistant message. */
const ClaudeUsage = recordOf({
  input_tokens: countField,
  output_tokens: countField,
  cache_read_input_tokens: countField,
  cache_creation_input_tokens: countField,
  cache_creation: recordOf({ ephemeral_1h_input_tokens: countField }),
});

/** A source message of a Claude Code thread, before repairs; assistant entries grow as lines merge. */
export interface ClaudeEntry {
  message: Message;
  usage?: Usage;
  /** The line's `timestamp` (the first line's, for assistant lines merged into one message). */
  occurredAt?: string;
  /** The model that wrote an assistant message (`message.model`, not `<synthetic>`). */
  model?: string;
}

/** Text and image blocks (or a plain string) as content parts; other block types are left to callers. */
export function claudeContent(raw: unknown, path: string): ContentPart[] {
  if (typeof raw === "string") return raw.length > 0 ? [{ type: "text", text: raw }] : [];
  const parts: ContentPart[] = [];
  for (const block of read(listField, raw)) {
    const b = read(ClaudeBlock, block);
    if (b.type === "text") parts.push({ type: "text", text: b.text ?? "" });
    else if (b.type === "image") parts.push(imagePart(b.source, path));
  }
  return parts;
}

function imagePart(source: z.output<typeof ClaudeBlock>["source"], path: string): ContentPart {
  const { media_type: mediaType, data, url } = source;
  if (data === undefined && url === undefined) throw invalidInput(path, "an image block needs data or url");
  return {
    type: "image",
    ...definedFields({ mediaType, data, url }),
  };
}

/**
 * Merges one assistant line's blocks into its message: text parts, `tool_use` as tool calls (arguments
 * are `JSON.stringify(input)`), `thinking` / `redacted_thinking` blocks kept whole in `reasoning` (an array).
 */
export function mergeAssistantBlocks(message: Message, raw: unknown, path: string): void {
  message.content.push(...claudeContent(raw, path));
  for (const block of read(listField, raw)) {
    const b = read(ClaudeBlock, block);
    if (b.type === "tool_use") {
      const { id, name } = b;
      if (id === undefined || id.length === 0 || name === undefined || name.length === 0) {
        throw invalidInput(path, "a tool_use block needs an id and a name");
      }
      message.toolCalls = [...(message.toolCalls ?? []), { id, name, arguments: JSON.stringify(b.input ?? {}) }];
    } else if (b.type === "thinking" || b.type === "redacted_thinking") {
      message.reasoning = [...(Array.isArray(message.reasoning) ? message.reasoning : []), block];
    }
  }
}

/**
 * The messages of one user line: a tool message per `tool_result` block (content string or blocks,
 * `is_error` kept), then one user message with the line's text and image blocks, if any.
 */
export function userLineMessages(raw: unknown, uuid: string, path: string): Message[] {
  const out: Message[] = [];
  for (const block of read(listField, raw)) {
    const b = read(ClaudeBlock, block);
    if (b.type !== "tool_result") continue;
    const toolCallId = b.tool_use_id;
    if (toolCallId === undefined || toolCallId.length === 0)
      throw invalidInput(path, "a tool_result needs tool_use_id");
    out.push({
      id: out.length === 0 ? uuid : `${uuid}:${out.length}`,
      role: "tool",
      content: claudeContent(b.content, path),
      toolCallId,
      ...(b.is_error === true ? { isError: true } : {}),
    });
  }
  const content = claudeContent(raw, path);
  if (content.length > 0) out.push({ id: out.length === 0 ? uuid : `${uuid}:text`, role: "user", content });
  return out;
}

/** Claude usage as Palimpsest usage: the prompt counts cached reads and cache writes too; 1-hour writes are kept apart. */
export function claudeUsage(raw: unknown): Usage | undefined {
  const {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
    cache_creation: { ephemeral_1h_input_tokens: cacheWrite1h },
  } = read(ClaudeUsage, raw);
  const usage: Usage = {};
  if (input !== undefined || cacheRead !== undefined || cacheWrite !== undefined) {
    usage.promptTokens = (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
  }
  if (output !== undefined) usage.completionTokens = output;
  if (cacheRead !== undefined) usage.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite;
  if (cacheWrite1h !== undefined && cacheWrite1h > 0) usage.cacheWrite1hTokens = cacheWrite1h;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

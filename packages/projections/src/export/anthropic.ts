import type { Message } from "@palimpsest/core";

/** A content block of the Anthropic messages API. */
export type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean };

/** One message of the Anthropic messages API. */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/** An Anthropic messages request body (without model and limits): system split out, user first. */
export interface AnthropicRequest {
  system?: string;
  messages: AnthropicMessage[];
}

/** Text used when a view starts with an assistant turn, since Anthropic requires a user turn first. */
export const CONTINUATION_PLACEHOLDER = "(continuing the conversation)";

function toolInput(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
    return { value: parsed };
  } catch {
    return { _raw_arguments: args };
  }
}

function blocksOf(message: Message): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  if (message.role === "tool") {
    const text = message.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
    const result: AnthropicBlock = { type: "tool_result", tool_use_id: message.toolCallId ?? "", content: text };
    if (message.isError === true) result.is_error = true;
    return [result];
  }
  const prefix = message.role === "system" ? "[system] " : "";
  for (const part of message.content) {
    if (part.type === "text") {
      if (part.text.length > 0) blocks.push({ type: "text", text: prefix + part.text });
    } else if (part.url !== undefined) {
      blocks.push({ type: "image", source: { type: "url", url: part.url } });
    } else {
      const media = part.mediaType ?? "image/png";
      blocks.push({ type: "image", source: { type: "base64", media_type: media, data: part.data ?? "" } });
    }
  }
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: toolInput(call.arguments) });
  }
  return blocks;
}

/**
 * Exports a view as an Anthropic messages request: leading system messages become `system`, later
 * ones a marked user text; tool results become user tool_result blocks; same-role neighbours merge
 * so roles alternate; a user placeholder is put first when the view opens with the assistant, and is
 * the only message when nothing else is left (an empty or system-only view).
 */
export function toAnthropicRequest(messages: readonly Message[]): AnthropicRequest {
  let i = 0;
  const system: string[] = [];
  for (; i < messages.length && (messages[i] as Message).role === "system"; i++) {
    system.push((messages[i] as Message).content.map((p) => (p.type === "text" ? p.text : "")).join("\n"));
  }
  const out: AnthropicMessage[] = [];
  for (const message of messages.slice(i)) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  // The API takes no request without messages: an empty (or system-only) view gets the placeholder alone.
  if (out[0] === undefined || out[0].role === "assistant")
    out.unshift({ role: "user", content: [{ type: "text", text: CONTINUATION_PLACEHOLDER }] });
  return system.length > 0 ? { system: system.join("\n\n"), messages: out } : { messages: out };
}

import { type Message, ValidationError } from "@palimpsest/core";

/** A prompt-cache breakpoint of the Anthropic messages API: the prefix through its block is cached. */
export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

/** A text block of the Anthropic messages API (a message's, or the system prompt's). */
export interface AnthropicTextBlock {
  type: "text";
  text: string;
  cache_control?: AnthropicCacheControl;
}

/** A content block of the Anthropic messages API. */
export type AnthropicBlock =
  | AnthropicTextBlock
  | ((
      | { type: "image"; source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } }
      | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
      | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean }
    ) & { cache_control?: AnthropicCacheControl });

/** One message of the Anthropic messages API. */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/**
 * An Anthropic messages request body (without model and limits): system split out, user first. `system`
 * is one text block carrying a breakpoint when the request was built with `cache`, else a string.
 */
export interface AnthropicRequest {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessage[];
}

/** Options of toAnthropicRequest. */
export interface AnthropicRequestOptions {
  /**
   * Prompt-cache breakpoints, placed where the `anthropic` profile's cost model expects them: the system
   * prompt (caching the tools before it too), the last two messages and, with `summaryId`
   * (`session.view().lastSummaryId`), the last summary, so a compaction that keeps the earlier summaries
   * rewrites only what follows them (the profile's `cache.summaryBreakpoint`). Four breakpoints at most,
   * Anthropic's limit: add none of your own. Unset: no breakpoints.
   */
  cache?: { summaryId?: string | undefined; ttl?: "5m" | "1h" };
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

/** The breakpoint of a `cache` option; VALIDATION (path `cache.ttl`) for a ttl Anthropic does not take. */
function cacheControl(ttl: unknown): AnthropicCacheControl {
  if (ttl === undefined) return { type: "ephemeral" };
  if (ttl === "5m" || ttl === "1h") return { type: "ephemeral", ttl };
  throw new ValidationError(
    'toAnthropicRequest cache.ttl must be "5m" or "1h"',
    [`cache.ttl: ${JSON.stringify(ttl)}`],
    {
      path: "cache.ttl",
    },
  );
}

/**
 * Exports a view as an Anthropic messages request: leading system messages become `system`, later
 * ones a marked user text; tool results become user tool_result blocks; same-role neighbours merge
 * so roles alternate; a user placeholder is put first when the view opens with the assistant, and is
 * the only message when nothing else is left (an empty or system-only view). With `options.cache`, the
 * request carries prompt-cache breakpoints (AnthropicRequestOptions).
 */
export function toAnthropicRequest(
  messages: readonly Message[],
  options: AnthropicRequestOptions = {},
): AnthropicRequest {
  let i = 0;
  const system: string[] = [];
  for (; i < messages.length && (messages[i] as Message).role === "system"; i++) {
    system.push((messages[i] as Message).content.map((p) => (p.type === "text" ? p.text : "")).join("\n"));
  }
  const out: AnthropicMessage[] = [];
  let summaryBlock: AnthropicBlock | undefined;
  for (const message of messages.slice(i)) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    if (message.id === options.cache?.summaryId) summaryBlock = blocks.at(-1);
    const last = out[out.length - 1];
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  // The API takes no request without messages: an empty (or system-only) view gets the placeholder alone.
  if (out[0] === undefined || out[0].role === "assistant")
    out.unshift({ role: "user", content: [{ type: "text", text: CONTINUATION_PLACEHOLDER }] });
  const systemText = system.join("\n\n");
  if (options.cache === undefined) return system.length > 0 ? { system: systemText, messages: out } : { messages: out };
  const control = cacheControl(options.cache.ttl);
  const marked = [summaryBlock, out.at(-2)?.content.at(-1), out.at(-1)?.content.at(-1)];
  for (const block of new Set(marked)) if (block !== undefined) block.cache_control = control;
  if (system.length === 0) return { messages: out };
  return { system: [{ type: "text", text: systemText, cache_control: control }], messages: out };
}

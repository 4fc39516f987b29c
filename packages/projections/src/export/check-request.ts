import type { AnthropicRequest } from "./anthropic.ts";
import type { OpenAIMessage } from "./openai.ts";

/**
 * How strict a request check is: `allowInFlight` (default true) lets the trailing calls go unanswered,
 * as a view mid-turn has them; false checks what a provider accepts as a request, where every call is answered.
 */
export interface RequestCheckOptions {
  allowInFlight?: boolean;
}

/**
 * Checks invariant 3 for OpenAI chat: every tool message answers a call of the assistant message
 * right before its run of tool messages, and every call is answered unless it is the trailing one (and
 * in-flight calls are allowed).
 */
export function checkOpenAIRequest(messages: readonly OpenAIMessage[], options: RequestCheckOptions = {}): string[] {
  const problems: string[] = [];
  let pending = new Set<string>();
  messages.forEach((m, index) => {
    if (m.role === "tool") {
      if (!pending.delete(m.tool_call_id)) problems.push(`#${index}: tool result ${m.tool_call_id} has no open call`);
      return;
    }
    if (pending.size > 0) problems.push(`#${index}: calls ${[...pending].join(", ")} were never answered`);
    pending = new Set(m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : []);
  });
  if (options.allowInFlight === false && pending.size > 0) {
    problems.push(`#${messages.length - 1}: calls ${[...pending].join(", ")} were never answered`);
  }
  return problems;
}

/** Prompt-cache breakpoints the Anthropic messages API takes in one request. */
const MAX_BREAKPOINTS = 4;

/**
 * Checks invariant 3 for Anthropic messages: at least one message, user first, strict alternation, tool_result blocks only
 * in the user turn right after the tool_use that they answer and before any text, every tool_use
 * answered there (except the trailing in-flight calls, the last assistant turn or its partial results,
 * where they are allowed); and no more than four prompt-cache breakpoints (`cache_control`), the API's limit.
 */
export function checkAnthropicRequest(request: AnthropicRequest, options: RequestCheckOptions = {}): string[] {
  const inFlightAllowed = options.allowInFlight !== false;
  const problems: string[] = [];
  const { messages } = request;
  if (messages.length === 0) problems.push("no messages");
  else if (messages[0]?.role !== "user") problems.push("#0: first message is not from the user");
  messages.forEach((m, index) => {
    if (m.content.length === 0) problems.push(`#${index}: empty content`);
    if (index > 0 && messages[index - 1]?.role === m.role) problems.push(`#${index}: two ${m.role} turns in a row`);
    if (m.role !== "assistant") return;
    const uses = new Set(m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])));
    const next = messages[index + 1];
    if (next === undefined) {
      if (uses.size > 0 && !inFlightAllowed)
        problems.push(`#${index}: tool_use ${[...uses].join(", ")} never answered`);
      return;
    }
    let seenOther = false;
    for (const block of next.content) {
      if (block.type !== "tool_result") {
        seenOther = true;
        continue;
      }
      if (seenOther) problems.push(`#${index + 1}: tool_result ${block.tool_use_id} comes after text`);
      if (!uses.delete(block.tool_use_id))
        problems.push(`#${index + 1}: tool_result ${block.tool_use_id} has no tool_use`);
    }
    const inFlight =
      inFlightAllowed && index + 1 === messages.length - 1 && next.content.every((b) => b.type === "tool_result");
    if (uses.size > 0 && !inFlight) problems.push(`#${index}: tool_use ${[...uses].join(", ")} never answered`);
  });
  for (const block of messages[0]?.content ?? []) {
    if (block.type === "tool_result") problems.push(`#0: tool_result ${block.tool_use_id} does not follow a tool_use`);
  }
  const system = typeof request.system === "string" ? [] : (request.system ?? []);
  const breakpoints = [...system, ...messages.flatMap((m) => m.content)].filter((b) => b.cache_control !== undefined);
  if (breakpoints.length > MAX_BREAKPOINTS)
    problems.push(`${breakpoints.length} cache_control breakpoints: at most ${MAX_BREAKPOINTS}`);
  return problems;
}

import type { Message, ToolCall } from "@palimpsest/core";

/** A view ready to send as a request: its messages, and the tool calls left out of them. */
export interface AnsweredView {
  messages: Message[];
  /** The trailing calls no result answered (a finished agent's last call, a call still in flight). */
  dropped: ToolCall[];
}

/**
 * The view as a provider accepts it as a request: the last assistant message's tool calls that no
 * later tool result answers are left out (the message too when nothing else is left in it), since the
 * Messages API and chat completions refuse a tool call without its result. Only the trailing calls can
 * be unanswered (invariant 2); every other message is as it was.
 */
export function withoutUnansweredCalls(messages: readonly Message[]): AnsweredView {
  const at = messages.findLastIndex((m) => m.role !== "tool");
  const last = messages[at];
  if (last === undefined || last.role !== "assistant" || last.toolCalls === undefined) {
    return { messages: [...messages], dropped: [] };
  }
  const answered = new Set(messages.slice(at + 1).map((m) => m.toolCallId));
  const dropped = last.toolCalls.filter((call) => !answered.has(call.id));
  if (dropped.length === 0) return { messages: [...messages], dropped };
  const { toolCalls, ...rest } = last;
  const kept = toolCalls.filter((call) => answered.has(call.id));
  const trimmed: Message = kept.length > 0 ? { ...rest, toolCalls: kept } : rest;
  const empty = trimmed.toolCalls === undefined && trimmed.content.every((p) => p.type === "text" && p.text === "");
  return { messages: [...messages.slice(0, at), ...(empty ? [] : [trimmed]), ...messages.slice(at + 1)], dropped };
}

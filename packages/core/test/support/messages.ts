import type { Message } from "@palimpsest/core";

let next = 0;

/** A user message with `text`. */
export function user(text: string, metadata?: Record<string, unknown>): Message {
  return { id: `u${next++}`, role: "user", content: [{ type: "text", text }], ...(metadata ? { metadata } : {}) };
}

/** An assistant message with `text` and tool calls given as [id, name, arguments object]. */
export function assistant(text: string, ...calls: [string, string, Record<string, unknown>][]): Message {
  return {
    id: `a${next++}`,
    role: "assistant",
    content: text.length === 0 ? [] : [{ type: "text", text }],
    ...(calls.length === 0
      ? {}
      : { toolCalls: calls.map(([id, name, args]) => ({ id, name, arguments: JSON.stringify(args) })) }),
  };
}

/** The tool result of call `callId`. */
export function result(callId: string, text: string, isError = false): Message {
  return {
    id: `t${next++}`,
    role: "tool",
    toolCallId: callId,
    content: [{ type: "text", text }],
    ...(isError ? { isError } : {}),
  };
}

/** A summary (a replacement a compaction placed). */
export function summary(text: string): {
  message: Message;
  tokens: number;
  placedBy: { compactionId: string; kind: "summary" };
} {
  return {
    message: { id: `s${next++}`, role: "user", content: [{ type: "text", text }] },
    tokens: Math.ceil(text.length / 4),
    placedBy: { compactionId: `c${next}`, kind: "summary" },
  };
}

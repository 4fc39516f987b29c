import type {
  CountedMessage,
  Message,
  MessagesSuperseded,
  Replacement,
  SessionCommand,
  SessionStarted,
  ToolCall,
} from "@palimpsest/core";

/** Session-started data with test defaults (o200k_base, a 128k window). */
export function startedData(overrides: Partial<SessionStarted> = {}): SessionStarted {
  return { model: "gpt-test", encoding: "o200k_base", contextWindow: 128_000, ...overrides } as SessionStarted;
}

/** A user message with one text part. */
export function userMessage(id: string, text: string): Message {
  return { id, role: "user", content: [{ type: "text", text }] };
}

/** An assistant message with text and, when `callIds` is non-empty, one tool call per id. */
export function assistantMessage(id: string, text: string, callIds: readonly string[] = []): Message {
  const message: Message = { id, role: "assistant", content: text.length > 0 ? [{ type: "text", text }] : [] };
  if (callIds.length > 0) message.toolCalls = callIds.map((c): ToolCall => ({ id: c, name: "run", arguments: "{}" }));
  return message;
}

/** A tool result answering `callId`. */
export function toolResult(id: string, callId: string, text: string): Message {
  return { id, role: "tool", toolCallId: callId, name: "run", content: [{ type: "text", text }] };
}

/** An append command for messages that each cost `tokens` (default 10). */
export function appendCommand(messages: readonly Message[], tokens = 10, turnId?: string): SessionCommand {
  const counted: CountedMessage[] = messages.map((message) => ({ message, tokens }));
  return turnId === undefined
    ? { type: "append-messages", messages: counted }
    : { type: "append-messages", messages: counted, turnId };
}

/** Supersede data with test defaults: a manual summary compaction at `viewVersion`. */
export function supersedeData(
  compactionId: string,
  targets: readonly string[],
  replacements: readonly Replacement[],
  viewVersion: number,
  overrides: Partial<MessagesSuperseded> = {},
): MessagesSuperseded {
  return {
    compactionId,
    targets: [...targets],
    replacements: [...replacements],
    mode: "summary",
    basis: { viewVersion },
    producer: { policy: "test" },
    stats: { tokensBefore: 0, tokensAfter: 0 },
    trigger: "manual",
    ...overrides,
  };
}

/** A summary replacement (a user-role message) placed where the first target stood. */
export function summaryReplacement(id: string, text: string, tokens = 5): Replacement {
  return { kind: "summary", message: userMessage(id, text), tokens };
}

/** A prune stub standing for the tool result `at`, answering the same call. */
export function stubReplacement(id: string, callId: string, at: string, tokens = 2): Replacement {
  return { kind: "stub", message: toolResult(id, callId, "[output pruned]"), tokens, at };
}

import type { Message } from "@palimpsest/core";

/** What a request builder is given: the view's live messages and its last summary (ActiveView's fields). */
export interface ConversationInput {
  /** The view's live messages, up to the agent's last request (SummaryConversation.messages). */
  messages: readonly Message[];
  /** The view's last summary (`session.view().lastSummaryId`), where the agent's requests may put a breakpoint. */
  lastSummaryId?: string;
}

/**
 * The agent's Anthropic request, as its own builder makes it (e.g. `toAnthropicRequest` from
 * `palimpsest`, plus its tools): the fields that make the cached prefix. Blocks are sent as they are.
 */
export interface AnthropicConversationRequest {
  /** The system prompt, as a string or text blocks (with their cache_control). */
  system?: string | readonly object[];
  /** The messages, their blocks and cache_control as the agent sends them. */
  messages: readonly { role: "user" | "assistant"; content: string | readonly object[] }[];
  /** The agent's tool definitions: part of the cached prefix. */
  tools?: readonly object[];
  /** The agent's tool choice: a different one makes the provider drop the messages' cache. */
  tool_choice?: object;
}

/** The agent's chat-completions request, as its own builder makes it: messages and tools, sent as they are. */
export interface OpenAIConversationRequest {
  /** The chat messages, as the agent sends them. */
  messages: readonly object[];
  /** The agent's tool definitions. */
  tools?: readonly object[];
  /** The agent's tool choice. */
  tool_choice?: string | object;
}

/**
 * Reading the conversation: `request` builds the agent's own request from the view's messages, the same
 * function that builds the agent's requests, so the provider finds the prompt in its cache.
 */
export interface ConversationOption<R> {
  /** Builds the agent's request from the conversation: the function the agent's own requests come from. */
  request(conversation: ConversationInput): R;
}

/** The conversation as the builder takes it: its messages and last summary, not the span's range. */
export function conversationInput(conversation: ConversationInput): ConversationInput {
  const { messages, lastSummaryId } = conversation;
  return lastSummaryId === undefined ? { messages } : { messages, lastSummaryId };
}

/**
 * The request's messages with the instruction as the final user turn: a text block after the last
 * message's blocks when that message is the user's (the blocks before it, and their cache breakpoints,
 * stay as they were), else a user message of its own. The builder's objects are not changed.
 */
export function withInstruction(
  messages: AnthropicConversationRequest["messages"],
  instruction: string,
): AnthropicConversationRequest["messages"] {
  const text = { type: "text", text: instruction };
  const last = messages.at(-1);
  if (last?.role !== "user") return [...messages, { role: "user", content: [text] }];
  const blocks = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  return [...messages.slice(0, -1), { ...last, content: [...blocks, text] }];
}

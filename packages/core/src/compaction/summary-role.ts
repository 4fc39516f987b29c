import type { Message } from "../messages/message.ts";

/** The role a message counts as for alternation: tool results travel as user turns (Anthropic), system as none. */
function turnRole(message: Message | undefined): "user" | "assistant" | undefined {
  if (message === undefined || message.role === "system") return undefined;
  return message.role === "assistant" ? "assistant" : "user";
}

/**
 * The summary's role: the opposite of the message before it, and user at the start of the conversation
 * (after the system prompt), where providers need a user turn first. This alternates on both sides
 * whenever any role can; when none can (the next message has that role too), the summary shares the role
 * of the first tail message and the Anthropic export merges the two into one turn (the event keeps them apart).
 */
export function chooseSummaryRole(before: Message | undefined): "user" | "assistant" {
  return turnRole(before) === "user" ? "assistant" : "user";
}

import { type Message, messageText } from "./message.ts";

/** How Claude Code opens a loaded skill's body, which it writes in the user's role when the model calls its Skill tool. */
export const SKILL_PREFIX = "Base directory for this skill:";

/**
 * Openings of text a harness writes in the user's role (Claude Code's task notifications, system reminders,
 * local command output, interruptions, a loaded skill's body): such a message is not the user's request.
 */
export const HARNESS_PREFIXES: readonly string[] = [
  "<task-notification>",
  "<system-reminder>",
  "<local-command-caveat>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "[Request interrupted by user",
  SKILL_PREFIX,
];

/** Whether `text` was written by a harness, not the user: it opens (after leading whitespace) with a HARNESS_PREFIXES entry. */
export function isHarnessText(text: string): boolean {
  const start = text.trimStart();
  return HARNESS_PREFIXES.some((prefix) => start.startsWith(prefix));
}

/** The text of a user request as it is kept and compared: line endings normalized to `\n`, outer whitespace trimmed. */
export function requestText(text: string): string {
  return text.replace(/\r\n?/g, "\n").trim();
}

/**
 * Whether a message is a user's request: a user-role message whose text is not empty, not harness text,
 * and not a tool result the importer turned into user text because its call was unknown
 * (`metadata.orphanToolResult`).
 */
export function isUserRequest(message: Message): boolean {
  if (message.role !== "user" || message.metadata?.orphanToolResult === true) return false;
  const text = requestText(messageText(message));
  return text.length > 0 && !isHarnessText(text);
}

import { type Message, messageText, type ToolCall } from "../messages/message.ts";
import { errorNames } from "./error-names.ts";
import { emptyItems, type FidelityItems } from "./fidelity-kinds.ts";
import { measuredNumbers } from "./measured-numbers.ts";
import { shellCommandPaths } from "./shell-paths.ts";
import { argumentPaths, isFileRead, shellCommand } from "./tool-call-kinds.ts";

/**
 * Text a harness writes in the user's role (Claude Code's notifications, hook output, interruptions, a
 * loaded skill's body): not a request.
 */
const HARNESS_PREFIXES = [
  "<task-notification>",
  "<system-reminder>",
  "<local-command-caveat>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "[Request interrupted by user",
  "Base directory for this skill:",
];

/** The text of a user request as fidelity compares it: line endings normalized to `\n`, outer whitespace trimmed. */
export function requestText(text: string): string {
  return text.replace(/\r\n?/g, "\n").trim();
}

/**
 * Extracts the fidelity items of each message of one conversation, in order (docs/fidelity.md): it
 * remembers the tool calls it has seen, so a tool result is read knowing the call it answers. Pure apart
 * from that memory; one extractor per conversation.
 */
export class FidelityExtractor {
  private readonly calls = new Map<string, ToolCall>();

  /** The items `message` brings into the conversation. */
  items(message: Message): FidelityItems {
    const items = emptyItems();
    if (message.role === "user") {
      const text = requestText(messageText(message));
      if (isRequest(message, text)) items.userRequests.push(text);
    } else if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) {
        this.calls.set(call.id, call);
        const command = shellCommand(call);
        if (command !== undefined) {
          const line = commandLine(command);
          if (line.length > 0) items.commands.push(line);
          items.filePaths.push(...shellCommandPaths(command));
        } else items.filePaths.push(...argumentPaths(call));
      }
      items.numbers.push(...measuredNumbers(messageText(message)));
    } else if (message.role === "tool") {
      const call = message.toolCallId === undefined ? undefined : this.calls.get(message.toolCallId);
      const text = messageText(message);
      if ((call === undefined || !isFileRead(call)) && !isFileListing(text)) {
        items.errorNames.push(...errorNames(text));
        items.numbers.push(...measuredNumbers(text));
      }
    }
    return distinct(items);
  }
}

/** The items of every message of a conversation, in order (one extractor over all of them). */
export function conversationItems(messages: readonly Message[]): FidelityItems[] {
  const extractor = new FidelityExtractor();
  return messages.map((m) => extractor.items(m));
}

/** A command as fidelity counts it: its first non-empty line, trimmed (a heredoc's body is content, not the command). */
export function commandLine(command: string): string {
  return (
    command
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? ""
  );
}

/**
 * Whether a tool result shows a file's lines rather than an outcome: most of its non-empty lines start with a
 * line number (`   12→`, `12\t`, `1457:`, as Read, `cat -n`, editors and SWE-agent's viewer print them).
 */
export function isFileListing(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim().length > 0);
  if (lines.length < 3) return false;
  const numbered = lines.filter((l) => /^\s*\d+(?:[:\t→│|]| {2})/.test(l)).length;
  return numbered * 2 >= lines.length;
}

function isRequest(message: Message, text: string): boolean {
  if (text.length === 0 || message.metadata?.orphanToolResult === true) return false;
  return !HARNESS_PREFIXES.some((prefix) => text.startsWith(prefix));
}

function distinct(items: FidelityItems): FidelityItems {
  return {
    userRequests: [...new Set(items.userRequests)],
    filePaths: [...new Set(items.filePaths)],
    errorNames: [...new Set(items.errorNames)],
    commands: [...new Set(items.commands)],
    numbers: [...new Set(items.numbers)],
  };
}

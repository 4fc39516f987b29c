import { errorNames } from "../messages/error-names.ts";
import { measuredNumbers } from "../messages/measured-numbers.ts";
import { type Message, messageText, type ToolCall } from "../messages/message.ts";
import { shellCommandPaths } from "../messages/shell-paths.ts";
import { argumentPaths, commandLine, shellCommand } from "../messages/tool-call-kinds.ts";
import { isFileContent } from "../messages/tool-output.ts";
import { isUserRequest, requestText } from "../messages/user-requests.ts";
import { emptyItems, type FidelityItems } from "./fidelity-kinds.ts";

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
      if (isUserRequest(message)) items.userRequests.push(requestText(messageText(message)));
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
      if (!isFileContent(call, text)) {
        items.errorNames.push(...errorNames(text));
        items.numbers.push(...measuredNumbers(text));
      }
    }
    return distinct(items);
  }

  /** Learns the tool calls of `message` without extracting its items (they were extracted before). */
  remember(message: Message): void {
    for (const call of message.toolCalls ?? []) this.calls.set(call.id, call);
  }
}

/** The items of every message of a conversation, in order (one extractor over all of them). */
export function conversationItems(messages: readonly Message[]): FidelityItems[] {
  const extractor = new FidelityExtractor();
  return messages.map((m) => extractor.items(m));
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

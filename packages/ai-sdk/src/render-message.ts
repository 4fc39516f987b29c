import { type Message, messageText } from "@palimpsest/core";
import type { AssistantContent, ModelMessage, ToolResultPart, UserContent } from "ai";

/**
 * A ModelMessage rendered from a message's projection, for messages the adapter did not write: a
 * summary, a prune or trim stub, an imported or handed-off session, another vendor's message. Text and
 * images carry over, tool calls become tool-call parts (input parsed from the arguments' JSON text),
 * results tool-result parts; `reasoning` is dropped (another provider's signed thinking is no input
 * here). `callNames` names a result's tool when the message does not. Undefined for a message that
 * renders to nothing (an assistant message that held only reasoning).
 */
export function renderMessage(message: Message, callNames: ReadonlyMap<string, string>): ModelMessage | undefined {
  switch (message.role) {
    case "system":
      return { role: "system", content: messageText(message) };
    case "user": {
      const content: UserContent = message.content.map((part) =>
        part.type === "text" ? { type: "text", text: part.text } : imageFile(part),
      );
      return { role: "user", content };
    }
    case "assistant": {
      const content: AssistantContent = [];
      for (const part of message.content) {
        if (part.type === "text" && part.text.length > 0) content.push({ type: "text", text: part.text });
        else if (part.type === "image") content.push(imageFile(part));
      }
      for (const call of message.toolCalls ?? []) {
        content.push({
          type: "tool-call",
          toolCallId: call.id,
          toolName: call.name,
          input: parseArguments(call.arguments),
        });
      }
      return content.length === 0 ? undefined : { role: "assistant", content };
    }
    case "tool": {
      const toolCallId = message.toolCallId ?? "";
      const part: ToolResultPart = {
        type: "tool-result",
        toolCallId,
        toolName: message.name ?? callNames.get(toolCallId) ?? "tool",
        output: resultOutput(message),
      };
      return { role: "tool", content: [part] };
    }
  }
}

function resultOutput(message: Message): ToolResultPart["output"] {
  const text = messageText(message);
  if (message.content.some((p) => p.type === "image")) {
    return {
      type: "content",
      value: message.content.map((part) =>
        part.type === "text" ? { type: "text", text: part.text } : imageFile(part),
      ),
    };
  }
  return message.isError === true ? { type: "error-text", value: text } : { type: "text", value: text };
}

function imageFile(part: Extract<Message["content"][number], { type: "image" }>) {
  const mediaType = part.mediaType ?? "image";
  return part.data !== undefined
    ? { type: "file" as const, mediaType, data: { type: "data" as const, data: part.data } }
    : { type: "file" as const, mediaType, data: { type: "url" as const, url: new URL(part.url ?? "") } };
}

/** Tool call input: the arguments' JSON, or the text itself when it is not JSON (it was never ours to fix). */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

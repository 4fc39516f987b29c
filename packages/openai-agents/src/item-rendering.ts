import type { AgentInputItem } from "@openai/agents-core";
import { type ContentPart, type ImagePart, type Message, messageText } from "@palimpsest/core";
import { callIdOf, itemRole, loose, storedItems } from "./agent-item.ts";

/** A 1x1 transparent PNG: the screenshot of a rendered computer result whose stub has none. */
const BLANK_PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** What a call item was, by call id: a rendered result must be the kind its call expects. */
type CallKinds = Map<string, { type: string; name: string }>;

/**
 * The items a view stands for, in order: a message an adapter wrote returns its items verbatim (a deep
 * copy); any other (a summary, a prune stub, an imported or handed-off message) is rendered from its
 * projection: text as `input_text`/`output_text` messages, tool calls as `function_call`s, tool results
 * as the result kind their call expects (a `function_call_result`, or a shell, patch, computer or tool
 * search output).
 * `reasoning` is dropped: another provider's signed thinking means nothing to this one.
 */
export function itemsOfMessages(messages: readonly Message[]): AgentInputItem[] {
  return itemsPerMessage(messages).flat();
}

/** The items of each message of a view (see itemsOfMessages), one list per message. */
export function itemsPerMessage(messages: readonly Message[]): AgentInputItem[][] {
  const kinds: CallKinds = new Map();
  const out: AgentInputItem[][] = [];
  for (const message of messages) {
    const stored = storedItems(message.metadata);
    const items = stored === undefined ? renderMessage(message, kinds) : structuredClone(stored);
    for (const item of items) {
      const id = itemRole(item) === "call" ? callIdOf(item) : undefined;
      const fields = loose(item);
      if (id !== undefined) kinds.set(id, { type: String(fields.type), name: String(fields.name ?? fields.type) });
    }
    out.push(items);
  }
  return out;
}

/** The items of one message without stored items, rendered from its projection. */
export function renderMessage(message: Message, kinds: CallKinds): AgentInputItem[] {
  const body = messageText(message);
  switch (message.role) {
    case "system":
      return [{ type: "message", role: "system", content: body }];
    case "user":
      return [{ type: "message", role: "user", content: message.content.map(userPart) }];
    case "assistant": {
      const items: AgentInputItem[] = [];
      if (body.length > 0) {
        items.push({
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: body }],
        });
      }
      for (const call of message.toolCalls ?? []) {
        items.push({
          type: "function_call",
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
          status: "completed",
        });
      }
      return items;
    }
    case "tool":
      return [renderResult(message, body, kinds)];
  }
}

function renderResult(message: Message, body: string, kinds: CallKinds): AgentInputItem {
  const callId = message.toolCallId as string;
  const call = kinds.get(callId);
  switch (call?.type) {
    case "shell_call":
      return {
        type: "shell_call_output",
        callId,
        output: [{ stdout: body, stderr: "", outcome: { type: "exit", exitCode: message.isError === true ? 1 : 0 } }],
      };
    case "apply_patch_call":
      return {
        type: "apply_patch_call_output",
        callId,
        status: message.isError === true ? "failed" : "completed",
        output: body,
      };
    case "computer_call": {
      // The output must be a screenshot: the stub's image, else a blank one (the pruned screenshot is in the log).
      const image = message.content.find((p) => p.type === "image");
      const data = image === undefined ? BLANK_PNG : imageUrl(image);
      return { type: "computer_call_result", callId, output: { type: "computer_screenshot", data } };
    }
    case "tool_search_call":
      return { type: "tool_search_output", call_id: callId, execution: "client", status: "completed", tools: [] };
    default: {
      const images = message.content.filter((p) => p.type === "image");
      return {
        type: "function_call_result",
        callId,
        name: message.name ?? call?.name ?? "tool",
        status: "completed",
        output:
          images.length === 0
            ? { type: "text", text: body }
            : (message.content.map((p) =>
                p.type === "text" ? { type: "input_text", text: p.text } : userPart(p),
              ) as never),
      };
    }
  }
}

function userPart(part: ContentPart): { type: "input_text"; text: string } | { type: "input_image"; image: string } {
  if (part.type === "text") return { type: "input_text", text: part.text };
  return { type: "input_image", image: imageUrl(part) };
}

/** An image part as the SDK takes it: its URL, or its data as a data URL. */
function imageUrl(part: ImagePart): string {
  return part.url ?? `data:${part.mediaType ?? "image/png"};base64,${part.data ?? ""}`;
}

import type { Message } from "@palimpsest/core";
import type { ModelMessage, SystemModelMessage, ToolModelMessage } from "ai";
import { type AnthropicCacheControl, placeBreakpoints } from "./anthropic-cache.ts";
import { renderMessage } from "./render-message.ts";
import { aiSdkMetadata, type StoredApprovals } from "./stored-metadata.ts";
import { decodeValue } from "./value-codec.ts";

/** A view as the AI SDK takes it: system messages as `instructions`, the rest as `messages`. */
export interface LoadedConversation {
  /** The system messages, in order (generateText and streamText refuse them inside `messages`). */
  instructions?: SystemModelMessage[];
  messages: ModelMessage[];
}

/** Prompt-cache breakpoints for loadMessages to place (openConversation's `anthropicCache`). */
export interface LoadBreakpoints {
  control: AnthropicCacheControl;
  /** The id of the view's last summary (ActiveView.lastSummaryId): the message it becomes is marked. */
  summaryId: string | undefined;
}

/**
 * The ModelMessages of a live view: each adapter message from its stored source (decoded), the tool
 * results of one source tool message re-joined, recorded approval responses put back where they stood,
 * every other message rendered from its projection (render-message.ts). With `cache`, the prompt-cache
 * breakpoints are placed too (anthropic-cache.ts).
 */
export function loadMessages(view: readonly Message[], cache?: LoadBreakpoints): LoadedConversation {
  const instructions: SystemModelMessage[] = [];
  const messages: ModelMessage[] = [];
  let summary: ModelMessage | undefined;
  const callNames = new Map<string, string>();
  let approvals: StoredApprovals[] = [];
  const answered = new Set<string>();
  let openGroup: { id: string; message: ToolModelMessage } | undefined;

  const flushApprovals = (all: boolean) => {
    const ready = approvals.filter((a) => all || a.answered.every((id) => answered.has(id)));
    if (ready.length === 0) return;
    approvals = approvals.filter((a) => !ready.includes(a));
    for (const a of ready) messages.push(approvalMessage(a));
    openGroup = undefined;
  };

  for (const message of view) {
    if (message.role !== "tool") {
      flushApprovals(true);
      openGroup = undefined;
      answered.clear();
    }
    for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
    const stored = aiSdkMetadata(message);
    if (message.role === "tool") {
      answered.add(message.toolCallId ?? "");
      const group = stored?.group;
      const parts = stored?.parts?.map(decodeValue) as ToolModelMessage["content"] | undefined;
      if (group !== undefined && parts !== undefined && openGroup?.id === group) {
        openGroup.message.content.push(...parts);
      } else {
        const rendered =
          group !== undefined && parts !== undefined
            ? withOptions({ role: "tool", content: parts }, stored?.providerOptions)
            : (renderMessage(message, callNames) as ToolModelMessage);
        messages.push(rendered);
        openGroup = group === undefined ? undefined : { id: group, message: rendered };
      }
      flushApprovals(false);
      continue;
    }
    const source =
      stored?.message === undefined ? renderMessage(message, callNames) : (decodeValue(stored.message) as ModelMessage);
    if (source === undefined) continue;
    if (message.id === cache?.summaryId) summary = source;
    if (source.role === "system") instructions.push(source);
    else messages.push(source);
    approvals = [...(stored?.approvals ?? [])];
    flushApprovals(false);
  }
  flushApprovals(true);
  if (cache !== undefined) placeBreakpoints({ instructions, messages }, summary, cache.control);
  return instructions.length === 0 ? { messages } : { instructions, messages };
}

function approvalMessage(approvals: StoredApprovals): ToolModelMessage {
  const content = approvals.parts.map(decodeValue) as ToolModelMessage["content"];
  return withOptions({ role: "tool", content }, approvals.providerOptions);
}

function withOptions(message: ToolModelMessage, providerOptions: unknown): ToolModelMessage {
  if (providerOptions === undefined) return message;
  return {
    ...message,
    providerOptions: decodeValue(providerOptions) as NonNullable<ToolModelMessage["providerOptions"]>,
  };
}

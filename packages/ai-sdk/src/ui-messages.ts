import type { StoredEvent } from "@palimpsest/core";
import type { UIMessage, UIMessageStreamOnEndCallback } from "ai";
import { aiSdkMetadata } from "./stored-metadata.ts";
import { decodeValue } from "./value-codec.ts";

/** What `toUIMessageStream({ onFinish })` hands its callback. */
export type UIMessageStreamEnd = Parameters<UIMessageStreamOnEndCallback<UIMessage>>[0];

/**
 * Why a UI stream's outcome must not be stored, or undefined when it is complete: the consumer cancelled
 * (the AI SDK still calls onFinish then, with the partial message), the stream was aborted or did not
 * complete, or a part is still streaming.
 */
export function incompleteReason(event: UIMessageStreamEnd): string | undefined {
  if (event.isCancelled === true) return "cancelled";
  if (event.isAborted) return "aborted";
  if (event.outcome.status !== "completed") return `outcome ${event.outcome.status}`;
  return streamingPart(event.responseMessage);
}

/**
 * `part N is still streaming` for the first text, reasoning or tool-input part not finished, else undefined
 * (also for a message without a `parts` array: not a UIMessage, which validateUIMessages then says).
 */
export function streamingPart(message: UIMessage): string | undefined {
  const parts: readonly unknown[] = Array.isArray(message.parts) ? message.parts : [];
  const index = parts.findIndex((part) => {
    const state = (part as { state?: unknown }).state;
    return state === "streaming" || state === "input-streaming";
  });
  return index < 0 ? undefined : `part ${index} of message ${message.id} is still streaming`;
}

/**
 * The UI messages a log holds (see AiSdkMetadata.uiMessage): of each UI message id, the copy the newest
 * save stored, in the order the ids were first saved. Messages a compaction or a rewrite has since
 * replaced count (the log keeps them); a message without a stored UI message (one saved as a
 * ModelMessage, a summary, an erased one) adds nothing.
 */
export function uiMessagesOfLog(events: readonly StoredEvent[]): UIMessage[] {
  const latest = new Map<string, UIMessage>();
  for (const event of events) {
    const placed =
      event.type === "message.appended"
        ? [event.data.message]
        : event.type === "messages.superseded"
          ? event.data.replacements.map((r) => r.message)
          : [];
    for (const message of placed) {
      const stored = aiSdkMetadata(message);
      if (stored?.ui !== undefined && stored.uiMessage !== undefined) {
        latest.set(stored.ui, decodeValue(stored.uiMessage) as UIMessage);
      }
    }
  }
  return [...latest.values()];
}

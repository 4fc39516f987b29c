import type { UIMessage, UIMessageStreamOnEndCallback } from "ai";

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

/** `part N is still streaming` for the first text, reasoning or tool-input part not finished, else undefined. */
export function streamingPart(message: UIMessage): string | undefined {
  const index = message.parts.findIndex((part) => {
    const state = (part as { state?: unknown }).state;
    return state === "streaming" || state === "input-streaming";
  });
  return index < 0 ? undefined : `part ${index} of message ${message.id} is still streaming`;
}

import type { Message } from "../messages/message.ts";

/** One broken rule found in a view, with the message it was found at. */
export interface ViewViolation {
  rule: "tool-result-without-call" | "tool-calls-without-results" | "duplicate-message" | "duplicate-tool-call-id";
  messageId: string;
  detail: string;
}

/**
 * Checks invariant 2 on a view: every tool result directly follows (with its siblings) the assistant
 * message that called it, and every call is answered before the next non-tool message. Calls of the
 * last assistant message may stay unanswered (the trailing in-flight call).
 */
export function checkToolPairs(
  view: readonly Pick<Message, "id" | "role" | "toolCalls" | "toolCallId">[],
): ViewViolation[] {
  const violations: ViewViolation[] = [];
  const seenCalls = new Set<string>();
  let pending = new Map<string, string>();
  for (const message of view) {
    if (message.role === "tool") {
      const callId = message.toolCallId ?? "";
      if (!pending.delete(callId)) {
        violations.push({ rule: "tool-result-without-call", messageId: message.id, detail: `call ${callId}` });
      }
      continue;
    }
    for (const [callId, ownerId] of pending) {
      violations.push({ rule: "tool-calls-without-results", messageId: ownerId, detail: `call ${callId}` });
    }
    pending = new Map();
    for (const call of message.toolCalls ?? []) {
      if (seenCalls.has(call.id)) {
        violations.push({ rule: "duplicate-tool-call-id", messageId: message.id, detail: `call ${call.id}` });
      }
      seenCalls.add(call.id);
      pending.set(call.id, message.id);
    }
  }
  return violations;
}

/** Checks that no message id appears twice in a view (invariant 1, within one view). */
export function checkUniqueIds(view: readonly Pick<Message, "id">[]): ViewViolation[] {
  const seen = new Set<string>();
  const violations: ViewViolation[] = [];
  for (const { id } of view) {
    if (seen.has(id)) violations.push({ rule: "duplicate-message", messageId: id, detail: "appears twice" });
    seen.add(id);
  }
  return violations;
}

import type { ValidationIssue } from "../errors.ts";
import { idLengthIssue } from "../input/id-limits.ts";
import type { Message } from "./message.ts";

/**
 * The first id of a message a write would store that is longer than its kind's limit (ID_LIMITS), as an
 * issue at its path under `base` (`messages[0].toolCalls[1].id`); undefined when all are within them.
 * MessageSchema holds the message's own id to its limit already; its tool calls' ids and `toolCallId` are
 * held to theirs here, on writes only (see MessageSchema).
 */
export function messageIdIssue(message: Message, base: string): ValidationIssue | undefined {
  let issue = idLengthIssue("message", message.id, `${base}.id`);
  const calls = message.toolCalls ?? [];
  for (let i = 0; issue === undefined && i < calls.length; i++) {
    issue = idLengthIssue("toolCall", calls[i]?.id, `${base}.toolCalls[${i}].id`);
  }
  return issue ?? idLengthIssue("toolCall", message.toolCallId, `${base}.toolCallId`);
}

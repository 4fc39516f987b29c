import { describeIssues, idLengthIssue, issueError, ValidationError } from "@palimpsest/core";
import type { ModelMessage } from "ai";
import type { AiModule } from "./ai-module.ts";
import { encodeValue } from "./value-codec.ts";

/**
 * A checked ModelMessage, its stored (tag-encoded) form, the id of the UI message it came from, and on
 * the last message a save stores from that UI message, the UI message itself (tag-encoded).
 */
export interface CheckedMessage {
  message: ModelMessage;
  encoded: ModelMessage;
  ui?: string;
  uiMessage?: unknown;
}

/**
 * Checks caller input as ModelMessages (the AI SDK's own `modelMessageSchema`) and returns each with
 * its tag-encoded copy, the form that is stored. ValidationError at `messages[i]` for a list that is not
 * an array, a message the schema refuses, a part's `toolCallId` longer than a tool call id may be
 * (ID_LIMITS.toolCall, at `messages[i].content[j].toolCallId`), or a value JSON cannot hold
 * (value-codec.ts); nothing is written then.
 */
export function checkModelMessages(ai: AiModule, input: unknown, what: string): CheckedMessage[] {
  if (!Array.isArray(input)) {
    throw new ValidationError(
      `${what} must be an array of ModelMessages`,
      [{ path: what, code: "custom", message: typeof input }],
      { path: what },
    );
  }
  return input.map((message: unknown, i) => {
    const path = `${what}[${i}]`;
    // Encoded first: a value JSON cannot hold (a Map in providerOptions) is refused at its own path, where
    // the schema would refuse the whole message without saying which value.
    const encoded = encodeValue(message, path) as ModelMessage;
    const parsed = ai.modelMessageSchema.safeParse(message);
    if (!parsed.success) {
      throw new ValidationError(`${path} is not a ModelMessage`, describeIssues(parsed.error, path), {
        cause: parsed.error,
        path,
      });
    }
    checkToolCallIds(message as ModelMessage, path);
    return { message: message as ModelMessage, encoded };
  });
}

/** Refuses a part (a call, a result, an approval request) whose `toolCallId` is longer than ID_LIMITS.toolCall. */
function checkToolCallIds(message: ModelMessage, path: string): void {
  if (!Array.isArray(message.content)) return;
  for (const [j, part] of message.content.entries()) {
    const tooLong = idLengthIssue(
      "toolCall",
      (part as { toolCallId?: unknown }).toolCallId,
      `${path}.content[${j}].toolCallId`,
    );
    if (tooLong !== undefined) throw issueError("ModelMessage", tooLong);
  }
}

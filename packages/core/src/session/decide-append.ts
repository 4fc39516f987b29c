import { InvariantViolation, ValidationError } from "../errors.ts";
import type { DomainEvent } from "../events/event-types.ts";
import { validateEvent } from "../events/parse-event.ts";
import { describeIssues } from "../input/describe-issues.ts";
import { issueError } from "../input/id-limits.ts";
import { checkId } from "../input/parse-input.ts";
import { isValidated, markValidated } from "../input/validated.ts";
import { isEmptyMessage, type Message, MessageSchema } from "../messages/message.ts";
import { messageIdIssue } from "../messages/message-id-limits.ts";
import type { CountedMessage } from "./commands.ts";
import { type KnownKeys, messageKey, resultKey } from "./log-keys.ts";
import type { SessionState } from "./session-state.ts";

/**
 * Decides an append of messages: each must be a valid message with a fresh id (its ids, and the turn's,
 * within their limits: ID_LIMITS); a tool result must answer a pending call of the newest assistant
 * message; nothing else may follow unanswered calls. `known`: the log keys of the batch the log already
 * holds (see commandKeys). A message validated where it entered (parseMessage) is not parsed again; every
 * other rule is checked for it all the same. The events are validated (validateEvent), so the store takes
 * them as they are.
 */
export function decideAppend(
  state: SessionState,
  known: KnownKeys,
  messages: readonly CountedMessage[],
  turnId?: string,
): DomainEvent[] {
  const sessionId = state.sessionId;
  if (turnId !== undefined) checkId(turnId, "turnId", "turn");
  const pending = new Map(state.pendingCalls);
  const batchIds = new Set<string>();
  const events: DomainEvent[] = [];
  messages.forEach(({ message: input, tokens }, index) => {
    const message = isValidated(input, MessageSchema) ? input : parseMessageAt(input, index);
    if (!Number.isInteger(tokens) || tokens < 0) {
      throw new ValidationError(`message ${index} has an invalid token count`, [`tokens: ${tokens}`]);
    }
    const tooLong = messageIdIssue(message, `messages[${index}]`);
    if (tooLong !== undefined) throw issueError("message", tooLong);
    if (known.has(messageKey(message.id)) || batchIds.has(message.id)) {
      throw new InvariantViolation("duplicate-message-id", `message id ${message.id} is already in the log`, {
        sessionId,
        ids: [message.id],
      });
    }
    if (isEmptyMessage(message)) {
      throw new InvariantViolation("empty-message", `message ${message.id} has no content and no tool calls`, {
        sessionId,
        ids: [message.id],
      });
    }
    if (message.role === "tool") {
      const callId = message.toolCallId ?? "";
      if (!pending.delete(callId)) {
        const rule = known.has(resultKey(callId)) ? "duplicate-tool-result" : "tool-result-without-live-call";
        throw new InvariantViolation(rule, `tool result ${message.id} answers call ${callId}, which is not waiting`, {
          sessionId,
          ids: [message.id, callId],
        });
      }
    } else {
      if (pending.size > 0) {
        throw new InvariantViolation(
          "tool-calls-without-results",
          `message ${message.id} would follow unanswered tool calls ${[...pending.keys()].join(", ")}`,
          { sessionId, ids: [...pending.keys()] },
        );
      }
      for (const call of message.toolCalls ?? []) {
        if (known.has(resultKey(call.id)) || pending.has(call.id)) {
          const hint =
            "each call of a session needs an id of its own (a model that numbers its calls anew in each response needs them made unique)";
          throw new InvariantViolation("duplicate-tool-call-id", `tool call id ${call.id} is already used: ${hint}`, {
            sessionId,
            ids: [call.id],
          });
        }
        pending.set(call.id, message.id);
      }
    }
    batchIds.add(message.id);
    events.push(
      validateEvent({
        type: "message.appended",
        data: turnId === undefined ? { message, tokens } : { message, tokens, turnId },
      }),
    );
  });
  return events;
}

/** Message `index` of a command parsed and marked as validated (markValidated); ValidationError at `messages[index]`. */
function parseMessageAt(input: unknown, index: number): Message {
  const parsed = MessageSchema.safeParse(input);
  if (!parsed.success) {
    throw new ValidationError(`message ${index} is invalid`, describeIssues(parsed.error), {
      cause: parsed.error,
      path: `messages[${index}]`,
    });
  }
  return markValidated(parsed.data, MessageSchema);
}

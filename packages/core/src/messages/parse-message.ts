import { issueError } from "../input/id-limits.ts";
import { parseInput } from "../input/parse-input.ts";
import { isValidated, markValidated } from "../input/validated.ts";
import { type Message, MessageSchema } from "./message.ts";
import { messageIdIssue } from "./message-id-limits.ts";

/**
 * Validates a message a caller gives for writing, where it enters: against MessageSchema, and its ids
 * within their limits (messageIdIssue); ValidationError with `details.path` at the bad field, under `path`
 * (`messages[2]`). The message returned is deeply frozen and marked as validated (markValidated), so the
 * decider and the store take it without parsing it again; one with anything but plain JSON in it (a Date
 * in its metadata) is neither, and is parsed again there. A message already marked is not parsed again.
 */
export function parseMessage(input: unknown, path: string): Message {
  const message = isValidated(input, MessageSchema)
    ? (input as Message)
    : markValidated(parseInput(MessageSchema, input, "message", path), MessageSchema);
  const tooLong = messageIdIssue(message, path);
  if (tooLong !== undefined) throw issueError("message", tooLong);
  return message;
}

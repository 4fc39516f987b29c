import { issueError, type Message, MessageSchema, messageIdIssue, parseInput } from "@palimpsest/core";
import { uuidv7 } from "uuidv7";

/** A message as a caller gives it: the id may be left out and is then a fresh UUIDv7. */
export type MessageInput = Omit<Message, "id" | "content"> & { id?: string; content: Message["content"] | string };

/**
 * Normalizes and validates caller input into a message: fills the id (`defaultId`, else a fresh UUIDv7),
 * turns string content into one text part, and checks it against MessageSchema and its ids against their
 * limits (ID_LIMITS) before anything counts or serializes it. ValidationError with `details.path` at the
 * bad field, under `path` (e.g. `messages[2]`).
 */
export function toMessage(input: MessageInput, path = "message", defaultId?: string): Message {
  const raw: unknown = input;
  // Not an object (null, a string, a number): the schema refuses it as a whole.
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return parseInput(MessageSchema, raw, "message", path);
  const { id, content, ...rest } = input;
  const message = parseInput(
    MessageSchema,
    {
      ...rest,
      id: id === undefined ? (defaultId ?? uuidv7()) : id,
      content: typeof content === "string" ? [{ type: "text", text: content }] : content,
    },
    "message",
    path,
  );
  const tooLong = messageIdIssue(message, path);
  if (tooLong !== undefined) throw issueError("message", tooLong);
  return message;
}

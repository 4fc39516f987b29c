import { type Message, parseMessage } from "@palimpsest/core";
import { uuidv7 } from "uuidv7";

/** A message as a caller gives it: the id may be left out and is then a fresh UUIDv7. */
export type MessageInput = Omit<Message, "id" | "content"> & { id?: string; content: Message["content"] | string };

/**
 * Normalizes and validates caller input into a message, once, where it enters: fills the id (`defaultId`,
 * else a fresh UUIDv7), turns string content into one text part, and checks it with core's parseMessage
 * (MessageSchema, its ids within their limits: ID_LIMITS) before anything counts or serializes it.
 * ValidationError with `details.path` at the bad field, under `path` (e.g. `messages[2]`). The message is
 * frozen and marked as validated, so neither the decider nor the store parses it again.
 */
export function toMessage(input: MessageInput, path = "message", defaultId?: string): Message {
  const raw: unknown = input;
  // Not an object (null, a string, a number): the schema refuses it as a whole. With an id and content
  // parts there is nothing to fill in: parsed as it is (one marked already is not parsed again).
  if (
    raw === null ||
    typeof raw !== "object" ||
    Array.isArray(raw) ||
    (input.id !== undefined && typeof input.content !== "string")
  )
    return parseMessage(raw, path);
  const { id, content, ...rest } = input;
  return parseMessage(
    {
      ...rest,
      id: id === undefined ? (defaultId ?? uuidv7()) : id,
      content: typeof content === "string" ? [{ type: "text", text: content }] : content,
    },
    path,
  );
}

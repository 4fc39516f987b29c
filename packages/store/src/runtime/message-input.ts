import type { Message } from "@palimpsest/core";
import { uuidv7 } from "uuidv7";

/** A message as a caller gives it: the id may be left out and is then a fresh UUIDv7. */
export type MessageInput = Omit<Message, "id" | "content"> & { id?: string; content: Message["content"] | string };

/** Normalizes caller input into a message: fills the id and turns string content into one text part. */
export function toMessage(input: MessageInput): Message {
  const { id, content, ...rest } = input;
  return {
    ...rest,
    id: id ?? uuidv7(),
    content: typeof content === "string" ? [{ type: "text", text: content }] : content,
  } as Message;
}

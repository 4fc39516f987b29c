import { definedFields } from "../defined-fields.ts";
import type { Message } from "../messages/message.ts";
import type { DomainEvent } from "./event-types.ts";

/** The name every tool call of an erased session takes (a tool's name can say what it did). */
export const ERASED_TOOL_NAME = "erased";

/**
 * A message with its content removed: id, role, tool call ids, the tool-result pairing and the error flag
 * stay; text and image parts, tool names and arguments, the participant name, reasoning and metadata go.
 * Still a valid Message, so an erased log parses and folds like any other.
 */
export function tombstoneMessage(message: Message): Message {
  return {
    id: message.id,
    role: message.role,
    content: [],
    ...(message.toolCalls === undefined
      ? {}
      : { toolCalls: message.toolCalls.map((c) => ({ id: c.id, name: ERASED_TOOL_NAME, arguments: "" })) }),
    ...definedFields({ toolCallId: message.toolCallId, isError: message.isError }),
  };
}

/**
 * An event's skeleton (docs/erasure.md): what erasure leaves of it in the log. Ids, seqs, types, roles,
 * tool call ids, token counts, turn usage and compaction records (ids, modes, targets, producer, stats)
 * stay, so views fold to the same shape and token totals and audit figures stay true; every text that
 * came from the conversation or its files goes: message content, tool names and arguments, summaries,
 * reasoning, metadata, the session's title and source file, hand-off reasons, failure details, and the
 * content-derived prefix hash of a compaction's basis. Valid against the kind's schema; idempotent.
 */
export function eventSkeleton(event: DomainEvent): DomainEvent {
  switch (event.type) {
    case "session.started": {
      const { title: _title, source, ...rest } = event.data;
      if (source === undefined) return { type: event.type, data: rest };
      const { file: _file, ...kept } = source;
      return { type: event.type, data: { ...rest, source: kept } };
    }
    case "message.appended":
      return { type: event.type, data: { ...event.data, message: tombstoneMessage(event.data.message) } };
    case "messages.superseded": {
      const { prefixHash: _hash, ...basis } = event.data.basis;
      const replacements = event.data.replacements.map((r) => ({ ...r, message: tombstoneMessage(r.message) }));
      return { type: event.type, data: { ...event.data, basis, replacements } };
    }
    case "compaction.failed": {
      const { detail: _detail, ...rest } = event.data;
      return { type: event.type, data: rest };
    }
    case "session.handed-off": {
      const { reason: _reason, ...rest } = event.data;
      return { type: event.type, data: rest };
    }
    case "turn.completed":
    case "session.erased":
      return event;
  }
}

/** How many messages an event carries (appended, or placed by a compaction): what erasure tombstones. */
export function messagesIn(event: DomainEvent): number {
  if (event.type === "message.appended") return 1;
  if (event.type === "messages.superseded") return event.data.replacements.length;
  return 0;
}

import { messageText, type StoredEvent } from "@palimpsest/core";
import { counted, preview } from "./output.ts";

/** One line saying what an event recorded, for people reading a log as it grows. */
export function eventLine(event: StoredEvent): string {
  switch (event.type) {
    case "session.started":
      return `session started${event.data.model === undefined ? "" : ` (${event.data.model})`}${event.data.parent === undefined ? "" : `, ${event.data.parent.relation} of ${event.data.parent.sessionId}`}`;
    case "message.appended": {
      const { message, tokens } = event.data;
      return `${message.role} ${message.id} (${counted(tokens, "token")}): ${preview(messageText(message), 80)}`;
    }
    case "turn.completed": {
      const prompt = event.data.usage?.promptTokens;
      return `turn ${event.data.turnId} completed${prompt === undefined ? "" : ` (prompt ${prompt} tokens)`}`;
    }
    case "messages.superseded":
      return compactionLine(event.data);
    case "compaction.failed":
      return `${event.data.mode} compaction failed (${event.data.reason}, attempt ${event.data.attempt})`;
    case "session.handed-off":
      return `handed off to ${event.data.toSessionId}${event.data.reason === undefined ? "" : ` (${event.data.reason})`}`;
    case "session.erased":
      return `session erased: ${counted(event.data.events, "event")} redacted${event.data.reason === undefined ? "" : ` (${event.data.reason})`}`;
  }
}

/** What a compaction superseded and reclaimed (or, allowed to grow the view, how much it grew), in one line. */
export function compactionLine(data: Extract<StoredEvent, { type: "messages.superseded" }>["data"]): string {
  const { stats, targets, compactionId, mode } = data;
  const saved = stats.tokensBefore - stats.tokensAfter;
  const net = saved >= 0 ? `reclaimed ${saved}` : `grew by ${-saved}`;
  return `compaction ${compactionId} (${mode}): superseded ${targets.length} message${targets.length === 1 ? "" : "s"}, ${stats.tokensBefore} → ${stats.tokensAfter} tokens (${net})`;
}

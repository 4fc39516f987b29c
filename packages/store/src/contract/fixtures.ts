import { randomUUID } from "node:crypto";
import type { DomainEvent } from "@palimpsest/core";

/** A session id no other test (or run) uses. */
export function newSessionId(label: string): string {
  return `${label}-${randomUUID()}`;
}

/** A valid session-started event. */
export function started(): DomainEvent {
  return { type: "session.started", data: { encoding: "o200k_base" } };
}

/** A valid user message event carrying `text`. */
export function userMessage(id: string, text: string): DomainEvent {
  return {
    type: "message.appended",
    data: { message: { id, role: "user", content: [{ type: "text", text }] }, tokens: 1 },
  };
}

/** A summary compaction of `targets` under `compactionId`, placing one message `summaryId`. */
export function summaryEvent(compactionId: string, targets: string[], summaryId: string, viewVersion = 0): DomainEvent {
  return {
    type: "messages.superseded",
    data: {
      compactionId,
      targets,
      replacements: [
        {
          kind: "summary",
          message: { id: summaryId, role: "user", content: [{ type: "text", text: "s" }] },
          tokens: 1,
        },
      ],
      mode: "summary",
      basis: { viewVersion },
      producer: { policy: "contract" },
      stats: { tokensBefore: 0, tokensAfter: 0 },
      trigger: "auto",
    },
  };
}

/** The text of a user message event as read back. */
export function textOf(event: { type: string; data: unknown }): string {
  if (event.type !== "message.appended") throw new Error(`not a message: ${event.type}`);
  const part = (event.data as { message: { content: { type: string; text?: string }[] } }).message.content[0];
  return part?.text ?? "";
}

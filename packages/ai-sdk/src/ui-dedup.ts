import type { Message } from "@palimpsest/core";
import type { ModelMessage } from "ai";
import type { CheckedMessage } from "./check-messages.ts";
import { aiSdkMetadata } from "./stored-metadata.ts";

/**
 * What of a UI message's conversion is not stored yet. A UI message grows after it was saved (a client
 * tool's output, an approval, a continued response arrive as new parts of the same message id), and its
 * conversion then repeats what the log holds: the messages already stored from that id, and the
 * tool results and approval responses already in the view (by tool call id, by approval id) are left out.
 * The same goes for a message sent again under its id (a retry).
 */
export function unsavedPart(
  converted: readonly CheckedMessage[],
  view: readonly Message[],
  uiId: string,
): CheckedMessage[] {
  const messages = new Set<string>();
  const parts = new Set<string>();
  for (const message of view) {
    const stored = aiSdkMetadata(message);
    if (stored === undefined) continue;
    if (message.role !== "tool" && stored.ui === uiId) messages.add(JSON.stringify(stored.message));
    for (const part of stored.parts ?? []) parts.add(partKey(part));
    for (const record of stored.approvals ?? []) for (const part of record.parts) parts.add(partKey(part));
  }
  return converted.flatMap((item): CheckedMessage[] => {
    const { message, encoded } = item;
    if (message.role !== "tool") return messages.has(JSON.stringify(encoded)) ? [] : [item];
    const keep = message.content.flatMap((part, i) => (parts.has(partKey(part)) ? [] : [i]));
    if (keep.length === message.content.length) return [item];
    if (keep.length === 0) return [];
    const pick = <T extends ModelMessage>(m: T): T =>
      ({ ...m, content: keep.map((i) => (m.content as unknown[])[i]) }) as T;
    return [{ ...item, message: pick(message), encoded: pick(encoded) }];
  });
}

/** A tool part's identity: the call a result answers, or the approval a response gives. */
function partKey(part: unknown): string {
  const p = part as { type?: unknown; toolCallId?: unknown; approvalId?: unknown };
  return p.type === "tool-approval-response" ? `approval:${String(p.approvalId)}` : `result:${String(p.toolCallId)}`;
}

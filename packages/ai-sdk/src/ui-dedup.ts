import { canonicalJson, type Message, type SessionState } from "@palimpsest/core";
import type { BatchedWrite } from "@palimpsest/runtime";
import type { ModelMessage } from "ai";
import type { CheckedMessage } from "./check-messages.ts";
import { type AiSdkMetadata, aiSdkMetadata, METADATA_KEY } from "./stored-metadata.ts";

/** A UI message as a save stores it: its id, its ModelMessages (each tagged with the id), and itself tag-encoded. */
export interface UIConversion {
  ui: string;
  items: CheckedMessage[];
  snapshot: unknown;
}

/**
 * What of one UI message's conversion the view does not hold yet, the message itself on the last of it
 * (nothing when the view holds all of it already).
 */
export function unsavedOf({ ui, items, snapshot }: UIConversion, view: readonly Message[]): CheckedMessage[] {
  const unsaved = unsavedPart(items, view, ui);
  const last = unsaved.at(-1);
  return last === undefined ? [] : [...unsaved.slice(0, -1), { ...last, uiMessage: snapshot }];
}

/**
 * The rewrites that keep the newer copy of UI messages sent again with nothing new for the model but
 * something new for the page (metadata, a data part): the live message holding a message's newest copy
 * is replaced (`retract`, policy `ai-sdk-ui-message`) by the same message holding this one. Each names
 * its basis: `state`'s view version plus the `before` rewrites of its batch and those before it. None
 * for a copy no live message holds (a compaction took it: the log keeps the older one).
 */
export function staleCopies(
  conversions: readonly UIConversion[],
  state: Readonly<SessionState>,
  before: number,
): BatchedWrite[] {
  const view = state.live.map((e) => e.message);
  const writes: BatchedWrite[] = [];
  for (const conversion of conversions) {
    if (unsavedOf(conversion, view).length > 0) continue;
    const holder = state.live.findLast((e) => {
      const stored = aiSdkMetadata(e.message);
      return stored?.ui === conversion.ui && stored.uiMessage !== undefined;
    });
    if (holder === undefined) continue;
    const { id, ...message } = holder.message;
    const stored = aiSdkMetadata(message) as AiSdkMetadata;
    if (canonicalJson(stored.uiMessage) === canonicalJson(conversion.snapshot)) continue;
    const metadata = { ...message.metadata, [METADATA_KEY]: { ...stored, uiMessage: conversion.snapshot } };
    writes.push({
      kind: "rewrite",
      rewrite: {
        mode: "retract",
        targets: [id],
        replacements: [{ ...message, metadata }],
        viewVersion: state.viewVersion + before + writes.length,
        policy: "ai-sdk-ui-message",
      },
    });
  }
  return writes;
}

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

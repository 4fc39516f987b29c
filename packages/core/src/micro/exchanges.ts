import { isSummaryEntry } from "../compaction/span-selection.ts";
import type { LiveEntry } from "../session/session-state.ts";

/** One assistant message and the tool results that follow it: the unit micro-compaction absorbs. */
export interface Exchange {
  /** View index of the assistant message and one past its last result. */
  start: number;
  end: number;
  entries: LiveEntry[];
}

/** The newest live rolling-summary marker with its view index, or undefined when there is none. */
export function liveMarker(view: readonly LiveEntry[]): { index: number; entry: LiveEntry } | undefined {
  for (let i = view.length - 1; i >= 0; i--) {
    const entry = view[i] as LiveEntry;
    if (entry.placedBy?.kind === "rolling-summary") return { index: i, entry };
  }
  return undefined;
}

/**
 * The cursor: the first view index micro-compaction has not passed. It lies after the protected head,
 * after the newest batch summary, and after the live marker (which always sits just before it).
 */
export function microCursor(view: readonly LiveEntry[], headEnd: number): number {
  let cursor = headEnd;
  view.forEach((entry, i) => {
    if (isSummaryEntry(entry)) cursor = Math.max(cursor, i + 1);
  });
  return cursor;
}

/** The exchange that starts at `index`, or undefined when the message there is no assistant reply (or is a summary). */
export function exchangeAt(view: readonly LiveEntry[], index: number): Exchange | undefined {
  const first = view[index];
  if (first === undefined || first.message.role !== "assistant" || isSummaryEntry(first)) return undefined;
  let end = index + 1;
  while (view[end]?.message.role === "tool") end++;
  return { start: index, end, entries: view.slice(index, end) };
}

/** True when every tool call of the exchange's assistant message has its result inside the exchange. */
export function isComplete(exchange: Exchange): boolean {
  const answered = new Set(exchange.entries.map((e) => e.message.toolCallId));
  return (exchange.entries[0]?.message.toolCalls ?? []).every((call) => answered.has(call.id));
}

import { isSummaryEntry } from "../compaction/span-selection.ts";
import type { LiveEntry } from "../session/session-state.ts";

/** One assistant message and the tool results that follow it: the unit micro-compaction absorbs. */
export interface Exchange {
  /** View index of the assistant message and one past its last result. */
  start: number;
  end: number;
  entries: LiveEntry[];
}

/**
 * The view indices of the live summaries and markers, in order. With `count` (the state's
 * `liveSummaries`) the scan stops at the last of them, which sits near the front of the view, so a
 * pass does not walk the whole transcript; without it, the whole view is scanned.
 */
export function summaryIndices(view: readonly LiveEntry[], count?: number): number[] {
  const found: number[] = [];
  for (let i = 0; i < view.length && (count === undefined || found.length < count); i++) {
    if (isSummaryEntry(view[i] as LiveEntry)) found.push(i);
  }
  return found;
}

/** The newest live rolling-summary marker with its view index, or undefined when there is none. */
export function liveMarker(
  view: readonly LiveEntry[],
  summaries: readonly number[] = summaryIndices(view),
): { index: number; entry: LiveEntry } | undefined {
  for (let k = summaries.length - 1; k >= 0; k--) {
    const index = summaries[k] as number;
    const entry = view[index] as LiveEntry;
    if (entry.placedBy?.kind === "rolling-summary") return { index, entry };
  }
  return undefined;
}

/**
 * The cursor: the first view index micro-compaction has not passed. It lies after the protected head,
 * after the newest batch summary, and after the live marker (which always sits just before it).
 */
export function microCursor(headEnd: number, summaries: readonly number[]): number {
  const last = summaries.at(-1);
  return last === undefined ? headEnd : Math.max(headEnd, last + 1);
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

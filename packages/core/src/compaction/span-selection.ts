import type { LiveEntry } from "../session/session-state.ts";

/** Messages kept verbatim after the system prompt until the first compaction (Hermes' head). */
export const HEAD_MESSAGES = 3;

/** The protected head `[0, headEnd)`, the compactable middle `[headEnd, tailStart)` and the protected tail. */
export interface SpanSelection {
  headEnd: number;
  tailStart: number;
}

/** True for a message a compaction placed as a summary (by its event, never by its content). */
export function isSummaryEntry(entry: LiveEntry): boolean {
  return entry.placedBy?.kind === "summary" || entry.placedBy?.kind === "rolling-summary";
}

/**
 * Index of the last real user message and of the last assistant reply (neither placed by a compaction):
 * both must stay verbatim in the tail, or resumed agents restart finished work (Hermes #10896).
 */
export function lastTurnIndices(view: readonly LiveEntry[]): { lastUser: number; lastAssistant: number } {
  let lastUser = -1;
  let lastAssistant = -1;
  for (let i = view.length - 1; i >= 0 && (lastUser < 0 || lastAssistant < 0); i--) {
    const entry = view[i] as LiveEntry;
    if (entry.placedBy !== undefined) continue;
    if (entry.message.role === "user" && lastUser < 0) lastUser = i;
    if (entry.message.role === "assistant" && lastAssistant < 0) lastAssistant = i;
  }
  return { lastUser, lastAssistant };
}

/**
 * Splits a view into head, middle and tail. Head: the leading system messages plus the first three
 * messages (the system prompt alone once a compaction has run), widened over the tool results it
 * ends on. Tail: the newest messages within `budget` tokens, widened to hold the last user message
 * and the last assistant reply, and never starting on a tool result, so no tool pair is split.
 */
export function selectSpan(view: readonly LiveEntry[], budget: number, compactions: number): SpanSelection {
  let headEnd = 0;
  while (headEnd < view.length && view[headEnd]?.message.role === "system") headEnd++;
  if (compactions === 0) headEnd = Math.min(view.length, headEnd + HEAD_MESSAGES);
  while (headEnd < view.length && view[headEnd]?.message.role === "tool") headEnd++;

  let tailStart = view.length;
  let used = 0;
  while (tailStart > 0 && used + (view[tailStart - 1] as LiveEntry).tokens <= budget) {
    tailStart--;
    used += (view[tailStart] as LiveEntry).tokens;
  }
  // Inside the budget, a tail starting on tool results gives them up rather than grow past it.
  while (tailStart < view.length && view[tailStart]?.message.role === "tool") tailStart++;
  const { lastUser, lastAssistant } = lastTurnIndices(view);
  for (const forced of [lastUser, lastAssistant]) if (forced >= 0) tailStart = Math.min(tailStart, forced);
  return { headEnd, tailStart: Math.max(headEnd, tailStart) };
}

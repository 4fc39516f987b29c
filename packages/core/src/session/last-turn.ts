import type { LiveEntry } from "./session-state.ts";

/**
 * Index of the last real user message and of the last assistant reply (neither placed by a compaction):
 * both must stay verbatim, or resumed agents restart finished work (Hermes #10896). -1 when absent.
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

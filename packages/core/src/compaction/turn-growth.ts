import type { LiveEntry } from "../session/session-state.ts";
import { isSummaryEntry } from "./span-selection.ts";

/**
 * Tokens the session adds per turn, as observed since its last compaction: the tokens of the live
 * messages after the newest summary (the whole view before the first) over the assistant messages among
 * them (one per provider request); system messages are not growth. 0 before the first reply.
 */
export function turnGrowth(view: readonly LiveEntry[]): number {
  const from = view.findLastIndex(isSummaryEntry) + 1;
  let tokens = 0;
  let turns = 0;
  for (let i = from; i < view.length; i++) {
    const entry = view[i] as LiveEntry;
    if (entry.message.role === "system") continue;
    tokens += entry.tokens;
    if (entry.message.role === "assistant") turns += 1;
  }
  return turns === 0 ? 0 : tokens / turns;
}

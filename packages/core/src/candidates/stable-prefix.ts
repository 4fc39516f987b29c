import type { SpanSelection } from "../compaction/span-selection.ts";
import type { LiveEntry } from "../session/session-state.ts";

/**
 * End (exclusive) of the stable prefix `[span.headEnd, end)`: the start of the middle, up to the first
 * message that could still change. It stops at the protected tail, at the first entry introduced after
 * `stableThroughSeq` (the turn in progress, queued or steered input: a retry or undo may still rewrite
 * them), and before any assistant message with an unanswered call; then it backs off so it never ends
 * between a call and its results. Pinned messages (last user message, last reply) do not stop it: a
 * compaction keeps them in place and summarizes past them, so the candidate does too (see
 * planCandidate); when they move, the candidate no longer starts today's span and misses.
 */
export function stablePrefixEnd(view: readonly LiveEntry[], span: SpanSelection, stableThroughSeq: number): number {
  const answered = new Set<string>();
  for (const entry of view) if (entry.message.toolCallId !== undefined) answered.add(entry.message.toolCallId);
  let end = span.headEnd;
  while (end < span.tailStart) {
    const entry = view[end] as LiveEntry;
    if (entry.seq > stableThroughSeq) break;
    if ((entry.message.toolCalls ?? []).some((call) => !answered.has(call.id))) break;
    end++;
  }
  while (end > span.headEnd && view[end]?.message.role === "tool") end--;
  return end;
}

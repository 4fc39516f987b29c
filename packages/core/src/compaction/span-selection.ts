import { lastTurnIndices } from "../session/last-turn.ts";
import type { LiveEntry } from "../session/session-state.ts";

/** Messages kept verbatim after the system prompt until the first compaction (Hermes' head). */
const HEAD_MESSAGES = 3;

/**
 * The protected head `[0, headEnd)`, the protected tail `[tailStart, end)`, and between them the middle,
 * less `pinned`: the last user message and the last reply (with its tool results) when they lie there.
 */
export interface SpanSelection {
  headEnd: number;
  tailStart: number;
  pinned: ReadonlySet<number>;
}

/** How a span is chosen beyond the tail budget. */
export interface SpanOptions {
  /**
   * Keep the earlier summaries verbatim: the head runs through the last summary before the tail (with what
   * lies before it), so a new summary follows it instead of folding it in. Not past a rolling summary, which
   * micro-compaction keeps updating.
   */
  keepSummaries?: boolean;
}

/** True for a message a compaction placed as a summary (by its event, never by its content). */
export function isSummaryEntry(entry: LiveEntry): boolean {
  return entry.placedBy?.kind === "summary" || entry.placedBy?.kind === "rolling-summary";
}

/**
 * Splits a view for compaction. Head: the leading system messages plus the first three messages (the
 * system prompt alone once a compaction has run), widened over the tool results it ends on. Tail: the
 * newest messages within `budget` tokens after the last summary (a new summary folds the earlier one in),
 * never starting on a tool result, so no tool pair is split.
 * The last user message and the last reply stay verbatim: when they fall before the tail (a long agent
 * run after one request), they are pinned rather than dragging the whole run into the tail, and the
 * summary, placed at the first message it replaces, comes before them. With `keepSummaries` the head
 * runs through the last summary before the tail instead (see SpanOptions).
 */
export function selectSpan(
  view: readonly LiveEntry[],
  budget: number,
  compactions: number,
  options: SpanOptions = {},
): SpanSelection {
  let headEnd = 0;
  while (headEnd < view.length && view[headEnd]?.message.role === "system") headEnd++;
  if (compactions === 0) headEnd = Math.min(view.length, headEnd + HEAD_MESSAGES);
  headEnd = pastResults(view, headEnd);

  let tailStart = view.length;
  let used = 0;
  while (tailStart > headEnd && used + (view[tailStart - 1] as LiveEntry).tokens <= budget) {
    tailStart--;
    used += (view[tailStart] as LiveEntry).tokens;
  }
  // An earlier summary never stays in the tail beside a new one: it joins the middle and is folded in.
  const lastSummary = view.findLastIndex(isSummaryEntry);
  if (lastSummary >= tailStart) tailStart = lastSummary + 1;
  // Inside the budget, a tail starting on tool results gives them up rather than grow past it.
  tailStart = pastResults(view, tailStart);
  if (options.keepSummaries) headEnd = Math.max(headEnd, keptSummariesEnd(view, tailStart));

  const pinned = new Set<number>();
  for (const index of Object.values(lastTurnIndices(view))) {
    if (index < headEnd || index >= tailStart) continue;
    const end = pastResults(view, index + 1);
    for (let i = index; i < end; i++) pinned.add(i);
  }
  return { headEnd, tailStart, pinned };
}

/** Tokens of the view's leading system messages. */
export function leadingSystemTokens(view: readonly LiveEntry[]): number {
  let tokens = 0;
  for (const e of view) {
    if (e.message.role !== "system") break;
    tokens += e.tokens;
  }
  return tokens;
}

/**
 * Tokens of the view's first `end` entries through the last summary among them (the leading system
 * messages' when there is none): the head a breakpoint on the last summary keeps cached.
 */
export function summaryHeadTokens(view: readonly LiveEntry[], end: number): number {
  let tokens = 0;
  let through = leadingSystemTokens(view);
  for (let i = 0; i < end; i++) {
    const entry = view[i] as LiveEntry;
    tokens += entry.tokens;
    if (isSummaryEntry(entry)) through = tokens;
  }
  return through;
}

/** The middle's entries a compaction may replace: between head and tail, less the pinned ones. */
export function middleEntries(view: readonly LiveEntry[], span: SpanSelection): LiveEntry[] {
  const middle: LiveEntry[] = [];
  for (let i = span.headEnd; i < span.tailStart; i++) if (!span.pinned.has(i)) middle.push(view[i] as LiveEntry);
  return middle;
}

/** Just past the last plain summary before `tailStart` (0 when there is none, or a rolling summary comes first). */
function keptSummariesEnd(view: readonly LiveEntry[], tailStart: number): number {
  let end = 0;
  for (let i = 0; i < tailStart; i++) {
    const kind = view[i]?.placedBy?.kind;
    if (kind === "rolling-summary") break;
    if (kind === "summary") end = pastResults(view, i + 1);
  }
  return Math.min(end, tailStart);
}

/** The first index at or after `index` that is not a tool result. */
function pastResults(view: readonly LiveEntry[], index: number): number {
  let i = index;
  while (i < view.length && view[i]?.message.role === "tool") i++;
  return i;
}

/**
 * Where `targets` lie in `view` when they are one run of it, in order: `view[start]` up to, not including,
 * `view[end]`; undefined otherwise (a message kept inside the span, a target not in the view). Only such a
 * span is given to a summarizer inside the conversation (SummaryRequest.conversation).
 */
export function spanRun(
  view: readonly { message: Pick<LiveEntry["message"], "id"> }[],
  targets: readonly string[],
): { start: number; end: number } | undefined {
  const start = view.findIndex((e) => e.message.id === targets[0]);
  if (start === -1 || targets.length === 0 || start + targets.length > view.length) return undefined;
  if (!targets.every((id, i) => view[start + i]?.message.id === id)) return undefined;
  return { start, end: start + targets.length };
}

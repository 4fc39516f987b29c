import { FIDELITY_KINDS, type FidelityItems } from "../fidelity/fidelity-kinds.ts";
import { FidelityExtractor } from "../fidelity/message-items.ts";
import { estimateTokens } from "../messages/estimate-tokens.ts";
import { type Message, messageText, type ToolCall } from "../messages/message.ts";
import {
  currentState,
  failedOutcome,
  HOW_TO_EXPAND,
  shortLastMessageLine,
  supersededLine,
  todoLine,
} from "../messages/summary-lines.ts";
import { summaryRequestTexts } from "../messages/summary-requests.ts";
import { requestText } from "../messages/user-requests.ts";
import type { LiveEntry } from "../session/session-state.ts";
import { stripSummaryNote } from "./summary-note.ts";

/**
 * What a summary must hold to keep everything docs/fidelity.md counts of the messages it replaces: the
 * user's requests verbatim, every distinct path, command, error name and measured number, and, when it
 * updates earlier summaries, all they held.
 */
export interface SummaryNeed {
  /** Tokens a summary keeping all of it takes (an estimate: the requests and items by their length, earlier summaries by summaryEstimate). */
  tokens: number;
  /**
   * Tokens no summary cuts: its frame (headings, the budget line, the recovery lines with the span's first
   * and last ids, the last assistant message as a summary over budget shortens it), the span's requests
   * and those of the earlier summaries it updates (summarizers keep every request verbatim; each earlier
   * summary's at most its own tokens). The rest of an earlier summary's lines may be dropped to fit.
   */
  hardTokens: number;
  /**
   * Distinct items of the replaced messages, plus those of the earlier summaries it folds in: the requests
   * they hold, and the rest estimated from their size (a summary's text is not its originals').
   */
  items: number;
  /** Of those, the requests, the earlier summaries' included (never dropped: they are in the hard tokens). */
  requests: number;
  /** Of `items`, the earlier summaries' other than their requests (estimated from their size); droppable. */
  earlierItems: number;
  /**
   * `tokens` and `hardTokens` are in the summarizer's units (estimateTokens, what a budget is fitted in);
   * these are the same in the session's counted tokens, what the summary takes in the prompt and is billed
   * as: the requests at the ratio of counted to estimated tokens measured on the messages they are copied
   * from (prose counts about 5 characters a token, not 3.25), an earlier summary at its counted tokens, the
   * rest (paths, commands, names, figures, the frame) as estimated.
   * `fixedTokens` is what a summary writes whatever its span's length: its frame and the earlier summaries
   * it folds in (their counted tokens); the rest grows with the span.
   */
  counted: { tokens: number; hardTokens: number; fixedTokens: number };
  /** Of `tokens`, what a summary holds whatever its span's length: its frame and the earlier summaries it folds in. */
  fixedTokens: number;
}

/*
 * The frame: what the offline summary writes beside its items. Its lines that vary with the span (the
 * recovery lines, the current state, a failed call's outcome) are sized with the functions that write
 * them (messages/summary-lines.ts); its fixed text by the characters renderDoc writes (estimateTokens).
 */
/** The requests section's heading and lead line, 92 characters (written when the span has a request). */
const REQUESTS_HEAD_TOKENS = 29;
/**
 * The rest of the fixed text no summary cuts, 113 characters: the blank lines between sections, the
 * Current State and Recovery headings, the recovery lines' marks and the budget line (five-digit figures).
 */
const FIXED_FRAME_TOKENS = 35;
/** The headings of the sections the span's other lines fill (Files, Commands, Errors) with their blank lines, 34 characters. */
const SECTION_HEADS_TOKENS = 11;
/** What one listed item takes beside its own text: the bullet, quotes, a status mark, the line end. */
const ITEM_FRAME_TOKENS = 9;

/** Tokens one item takes in a summary, on average (the offline summary of the tuning set's sessions: 15). */
const TOKENS_PER_ITEM = 15;

/**
 * One item of a message as the need counts it: its kind and text as one key, what it takes in a summary;
 * or text the summary writes with an item that is no fact (a failed call's outcome: `fact` false).
 */
interface NeedItem {
  key: string;
  tokens: number;
  request: boolean;
  fact: boolean;
}

/**
 * Items of a message, once per message object: a span is costed at every turn, its messages do not
 * change. A tool result is kept only when read knowing its call (what it holds depends on the call).
 */
const itemsOf = new WeakMap<Message, NeedItem[]>();

/** The items of `message` as the need counts them: each by the summarizers' own estimate, with its frame. */
function needItems(items: FidelityItems): NeedItem[] {
  return FIDELITY_KINDS.flatMap((kind) =>
    items[kind].map((item) => ({
      key: `${kind}\u0000${item}`,
      // A request is written whole; the rest are short lines.
      tokens: estimateTokens(item) + ITEM_FRAME_TOKENS,
      request: kind === "userRequests",
      fact: true,
    })),
  );
}

/** What the command line of a failed call writes after its label (once per call and outcome, as the summary lists them). */
function outcomeItem(call: ToolCall, result: Message): NeedItem {
  const outcome = failedOutcome(messageText(result));
  return {
    key: `outcome\u0000${call.name}\u0000${call.arguments}\u0000${outcome}`,
    tokens: estimateTokens(outcome),
    request: false,
    fact: false,
  };
}

/**
 * The frame's tokens that vary with the span: the recovery lines (its count and first and last ids) and
 * the current state its last assistant text and last todo list make: the last-message line as a summary
 * over budget shortens it (hard: never dropped), the other state lines (dropped only after every item).
 */
function spanFrame(fresh: readonly LiveEntry[], summaries: number): { hard: number; soft: number } {
  const span = fresh.map((e) => e.message);
  const recovery = [supersededLine(span, summaries) ?? "", HOW_TO_EXPAND];
  let lastText = "";
  let todo: string | undefined;
  for (let i = fresh.length - 1; i >= 0 && (lastText === "" || todo === undefined); i--) {
    const message = fresh[i]?.message;
    if (message?.role !== "assistant") continue;
    if (lastText === "") lastText = messageText(message).trim();
    const calls = message.toolCalls ?? [];
    for (let c = calls.length - 1; c >= 0 && todo === undefined; c--) todo = todoLine(calls[c] as ToolCall);
  }
  const state = currentState(lastText, todo, []);
  // The last-message line comes first: a summary over budget shortens it, and never drops it.
  const last = lastText === "" ? [] : [shortLastMessageLine(state.shift() ?? "")];
  const tokens = (lines: readonly string[]) => lines.reduce((sum, line) => sum + estimateTokens(line), 0);
  return { hard: tokens([...recovery, ...last]), soft: tokens(state) };
}

/**
 * The need of a summary of `fresh` (the messages it replaces, in view order) that also folds `earlier`
 * summaries in (none when it keeps them): their requests whole (hard), the rest by size. Tool results are read knowing their calls (the span never
 * splits a pair, so the calls are in `fresh`).
 */
export function summaryNeed(fresh: readonly LiveEntry[], earlier: readonly LiveEntry[] = []): SummaryNeed {
  const extractor = new FidelityExtractor();
  const seen = new Set<string>();
  let requestTokens = 0;
  let requests = 0;
  let itemTokens = 0;
  let facts = 0;
  const calls = new Map<string, ToolCall>();
  for (const { message } of fresh) {
    for (const call of message.toolCalls ?? []) calls.set(call.id, call);
    let items = itemsOf.get(message);
    if (items === undefined) {
      items = needItems(extractor.items(message));
      const call = message.toolCallId === undefined ? undefined : calls.get(message.toolCallId);
      if (call !== undefined && message.isError === true) items.push(outcomeItem(call, message));
      const known = message.role !== "tool" || call !== undefined;
      if (known) itemsOf.set(message, items);
    } else if (message.role === "assistant") extractor.remember(message);
    for (const item of items) {
      if (seen.has(item.key)) continue;
      seen.add(item.key);
      if (item.fact) facts += 1;
      if (item.request) {
        requestTokens += item.tokens;
        requests += 1;
      } else itemTokens += item.tokens;
    }
  }
  const frame = spanFrame(fresh, earlier.length);
  // The earlier summaries' requests: an update keeps them verbatim, as it keeps the span's own.
  // The requests are prose, counted at the ratio measured on the span's own user messages.
  const requestRatio = countedRatio(requestMessages(fresh));
  const kept = keptRequests(earlier, seen, requestRatio);
  // The requests section is written when the span or an earlier summary holds a request.
  const head = requests + kept.requests > 0 ? REQUESTS_HEAD_TOKENS : 0;
  const frameTokens = FIXED_FRAME_TOKENS + head + frame.hard;
  const sectionTokens = itemTokens > 0 ? SECTION_HEADS_TOKENS : 0;
  const earlierTokens = summariesEstimate(earlier);
  const earlierItems = Math.round((earlierTokens - kept.tokens) / TOKENS_PER_ITEM);
  const soft = frame.soft + sectionTokens + itemTokens;
  const hardTokens = frameTokens + requestTokens + kept.tokens;
  // In counted tokens: the span's requests at its request messages' ratio, the earlier summaries as counted.
  const countedHard = frameTokens + Math.round(requestTokens * requestRatio) + kept.counted;
  const earlierCounted = earlier.reduce((sum, e) => sum + e.tokens, 0);
  const countedEarlier = earlierCounted - kept.counted;
  return {
    tokens: hardTokens + soft + earlierTokens - kept.tokens,
    hardTokens,
    items: facts + kept.requests + earlierItems,
    requests: requests + kept.requests,
    earlierItems,
    fixedTokens: frameTokens + earlierTokens,
    counted: {
      tokens: countedHard + soft + Math.max(0, countedEarlier),
      hardTokens: countedHard,
      fixedTokens: frameTokens + earlierCounted,
    },
  };
}

/**
 * Counted tokens per estimated token of `entries`' text (at most 1: the estimate is the dense bound, and a
 * count over it is the message's framing, which text copied into a summary does not carry); 1 without text.
 */
function countedRatio(entries: readonly LiveEntry[]): number {
  let counted = 0;
  let estimated = 0;
  for (const entry of entries) {
    counted += entry.tokens;
    estimated += estimateTokens(messageText(entry.message));
  }
  return estimated > 0 ? Math.min(1, counted / estimated) : 1;
}

/** The user messages of a span with text: what its requests are copied from. */
function requestMessages(fresh: readonly LiveEntry[]): LiveEntry[] {
  return fresh.filter((e) => e.message.role === "user" && messageText(e.message).trim() !== "");
}

/**
 * Earlier summaries' size in the summarizer's units, as an update's need counts them (summaryEstimate: each
 * at the larger of its text's estimate and its counted tokens): in a plan that keeps them whole, the room
 * they give their facts, comparable with a summary's budget.
 */
export function summariesEstimate(summaries: readonly LiveEntry[]): number {
  return summaries.reduce((sum, e) => sum + summaryEstimate(e), 0);
}

/**
 * An earlier summary's size in the summarizer's units: its text's estimate (what an update fitting its
 * budget measures), never less than its counted tokens (the estimate is not below them on real summaries).
 */
function summaryEstimate(entry: LiveEntry): number {
  return Math.max(entry.tokens, estimateTokens(stripSummaryNote(messageText(entry.message))));
}

/**
 * Counted tokens of the requests `summaries` hold (each summary's at most its own counted tokens, the
 * units of the prompt they are taken from): what no update of them drops, as summarizers keep every request
 * verbatim (a summary of another shape holds none that this reads). Converted as an update's need converts
 * them: at the ratio of `fresh`'s user messages where it is lower than the summary's (keptRequests).
 */
export function summaryRequestTokens(summaries: readonly LiveEntry[], fresh: readonly LiveEntry[] = []): number {
  return keptRequests(summaries, new Set(), countedRatio(requestMessages(fresh))).counted;
}

/**
 * The requests of earlier summaries not in `seen` (added to it), counted as the need counts a request: its
 * text's estimate and an item's frame, each summary's at most its own estimate (`tokens`); and the same in
 * counted tokens, at most its counted size (`counted`). The requests are prose: they are converted at the
 * lower of the summary's ratio of counted to estimated tokens (which its paths, commands and figures, dense
 * in tokens, raise: on a summary of tool calls it is 1, the bare estimate) and `requestRatio`, the ratio
 * measured on user messages of the same session (1 when there are none).
 */
function keptRequests(
  summaries: readonly LiveEntry[],
  seen: Set<string>,
  requestRatio: number,
): { requests: number; tokens: number; counted: number } {
  let requests = 0;
  let tokens = 0;
  let counted = 0;
  for (const entry of summaries) {
    let own = 0;
    for (const request of heldRequests(entry.message)) {
      if (seen.has(request.key)) continue;
      seen.add(request.key);
      requests += 1;
      own += request.tokens;
    }
    const estimate = summaryEstimate(entry);
    tokens += Math.min(own, estimate);
    counted += Math.min(Math.round(own * Math.min(entry.tokens / estimate, requestRatio)), entry.tokens);
  }
  return { requests, tokens, counted };
}

/**
 * The requests a summary holds, read once per summary message (the policy costs its candidates at every
 * turn, and a summary does not change): each as the need keys and counts a request.
 */
const requestsOf = new WeakMap<Message, { key: string; tokens: number }[]>();

/** The requests `summary` holds, keyed and counted as the need counts a request (its text's estimate and an item's frame). */
function heldRequests(summary: Message): { key: string; tokens: number }[] {
  let held = requestsOf.get(summary);
  if (held === undefined) {
    held = summaryRequestTexts(messageText(summary)).map((text) => ({
      key: `userRequests\u0000${requestText(text)}`,
      tokens: estimateTokens(text) + ITEM_FRAME_TOKENS,
    }));
    requestsOf.set(summary, held);
  }
  return held;
}

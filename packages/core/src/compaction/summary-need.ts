import { FIDELITY_KINDS, type FidelityItems } from "../fidelity/fidelity-kinds.ts";
import { FidelityExtractor } from "../fidelity/message-items.ts";
import { estimateTokens } from "../messages/estimate-tokens.ts";
import type { Message } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";

/**
 * What a summary must hold to keep everything docs/fidelity.md counts of the messages it replaces: the
 * user's requests verbatim, every distinct path, command, error name and measured number, and, when it
 * updates earlier summaries, all they held.
 */
export interface SummaryNeed {
  /** Tokens a summary keeping all of it takes (an estimate: the requests and items by their length, earlier summaries by their counted tokens). */
  tokens: number;
  /**
   * Tokens no summary cuts: its frame and the span's requests (summarizers keep them verbatim). An earlier
   * summary it updates is not counted here: its lines may be dropped to fit (its requests too are kept,
   * which this estimate cannot see).
   */
  hardTokens: number;
  /**
   * Distinct items of the replaced messages, plus those of the earlier summaries it folds in (estimated
   * from their size: a summary's text is not its originals').
   */
  items: number;
  /** Of those, the requests (never dropped: they are the hard tokens). */
  requests: number;
  /** Of `items`, the earlier summaries' (estimated from their size); the rest are the replaced messages'. */
  earlierItems: number;
}

/** What the summary's frame takes beside its items: headings, the state line, the recovery pointer. */
const FRAME_TOKENS = 160;
/** What one listed item takes beside its own text: the bullet, quotes, a status mark, the line end. */
const ITEM_FRAME_TOKENS = 9;

/** Tokens one item takes in a summary, on average (the offline summary of the tuning set's sessions: 15). */
const TOKENS_PER_ITEM = 15;

/** One item of a message as the need counts it: its kind and text as one key, what it takes in a summary. */
interface NeedItem {
  key: string;
  tokens: number;
  request: boolean;
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
    })),
  );
}

/**
 * The need of a summary of `fresh` (the messages it replaces, in view order) that also folds `earlier`
 * summaries in (none when it keeps them). Tool results are read knowing their calls (the span never
 * splits a pair, so the calls are in `fresh`).
 */
export function summaryNeed(fresh: readonly LiveEntry[], earlier: readonly LiveEntry[] = []): SummaryNeed {
  const extractor = new FidelityExtractor();
  const seen = new Set<string>();
  let requestTokens = 0;
  let requests = 0;
  let itemTokens = 0;
  const calls = new Set<string>();
  for (const { message } of fresh) {
    for (const call of message.toolCalls ?? []) calls.add(call.id);
    let items = itemsOf.get(message);
    if (items === undefined) {
      items = needItems(extractor.items(message));
      const known = message.role !== "tool" || (message.toolCallId !== undefined && calls.has(message.toolCallId));
      if (known) itemsOf.set(message, items);
    } else if (message.role === "assistant") extractor.remember(message);
    for (const item of items) {
      if (seen.has(item.key)) continue;
      seen.add(item.key);
      if (item.request) {
        requestTokens += item.tokens;
        requests += 1;
      } else itemTokens += item.tokens;
    }
  }
  const earlierTokens = earlier.reduce((sum, e) => sum + e.tokens, 0);
  const earlierItems = Math.round(earlierTokens / TOKENS_PER_ITEM);
  return {
    tokens: FRAME_TOKENS + requestTokens + earlierTokens + itemTokens,
    hardTokens: FRAME_TOKENS + requestTokens,
    items: seen.size + earlierItems,
    requests,
    earlierItems,
  };
}

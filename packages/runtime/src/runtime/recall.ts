import {
  checkOptionKeys,
  type EventStore,
  type Message,
  type MessageSearch,
  type MessageSearchHit,
  messageKey,
  messageSearchText,
  searchTerms,
  ValidationError,
} from "@palimpsest/core";

/** Messages a recall returns when its options name no limit. */
export const DEFAULT_RECALL_LIMIT = 5;
/** Most messages one recall returns (page on with `offset` for more). */
export const MAX_RECALL_LIMIT = 50;
/** Query words a recall matches at most (the first ones; the store takes no more). */
const MAX_QUERY_TERMS = 64;
/** How many ancestors a recall walks up at most (a session's parent, its parent's, …). */
const MAX_LINEAGE = 32;
/** Characters of a snippet on each side of the first term it shows. */
const SNIPPET_SIDE = 80;

/** How a recall searches (Session.recall). */
export interface RecallOptions {
  /** Most messages returned, 1 to MAX_RECALL_LIMIT; default DEFAULT_RECALL_LIMIT. */
  limit?: number;
  /** Messages skipped first, as a previous result's `nextOffset` says; default 0. */
  offset?: number;
  /** Search the sessions this one came from too (its parent's log, up the chain: forks, hand-offs, subagents); default true. */
  lineage?: boolean;
}

/** One original message a recall found. */
export interface RecalledMessage {
  /** The session whose log holds it (this one, or an ancestor). */
  sessionId: string;
  /** Its event's seq in that session's log. */
  seq: number;
  /** The message as it was appended. */
  message: Message;
  /** The compaction that took it out of its session's view; absent while it is still in the view. */
  supersededBy?: string;
  /** Its text around the first query term it holds, on one line. */
  snippet: string;
  /** How well it matched (higher is better; comparable within one result only). */
  rank: number;
}

/** What a recall found: the query's terms, the messages best first, and the offset of the next page (null: none). */
export interface RecallResult {
  terms: string[];
  messages: RecalledMessage[];
  nextOffset: number | null;
}

/**
 * Finds the original messages of `sessionId` (and of the sessions it came from) that hold any word of
 * `query`, superseded ones included: the log's search index, ranked by the store (more of the words,
 * and rarer ones, first). ValidationError for a query with no word to search or bad options. A store
 * that encrypts content keeps no index: it scans the sessions' messages instead (slower on long sessions).
 */
export async function recall(
  store: EventStore & MessageSearch,
  sessionId: string,
  query: string,
  options: RecallOptions = {},
): Promise<RecallResult> {
  const { limit, offset, lineage } = checkRecallOptions(options);
  const terms = typeof query === "string" ? searchTerms(query) : [];
  if (terms.length === 0) {
    throw new ValidationError(
      "a recall needs a query with at least one word (letters or digits)",
      [`query: ${String(query).slice(0, 40)}`],
      { path: "query" },
    );
  }
  const chain = lineage ? await ancestry(store, sessionId) : [{ sessionId }];
  const { hits, nextOffset } = await lineageHits(store, chain, terms.slice(0, MAX_QUERY_TERMS), limit, offset);
  const superseders = await supersededMessages(store, [...new Set(hits.map((h) => h.event.sessionId))]);
  const messages = hits.flatMap(({ event, rank }): RecalledMessage[] => {
    if (event.type !== "message.appended") return [];
    const message = event.data.message;
    const supersededBy = superseders.get(`${event.sessionId}\n${message.id}`);
    return [
      {
        sessionId: event.sessionId,
        seq: event.seq,
        message,
        ...(supersededBy === undefined ? {} : { supersededBy }),
        snippet: snippet(messageSearchText(message), terms.slice(0, MAX_QUERY_TERMS)),
        rank,
      },
    ];
  });
  return { terms, messages, nextOffset };
}

/** Hits read per page while filtering an ancestor's hits, and pages read at most for one recall. */
const LINEAGE_PAGE = 50;
const MAX_LINEAGE_PAGES = 20;

/**
 * One page of hits over `chain` (the session first, then its ancestors), `offset` counting the store's
 * hits: an ancestor's message after the point the nearer session left it (a fork's other branch) is
 * passed over, and so is one a nearer session holds too (a fork or hand-off carries the parent's view:
 * its own copy is the one found). `nextOffset` is the store's offset of the next page.
 */
async function lineageHits(
  store: EventStore & MessageSearch,
  chain: readonly Lineage[],
  terms: readonly string[],
  limit: number,
  offset: number,
): Promise<{ hits: MessageSearchHit[]; nextOffset: number | null }> {
  const sessionIds = chain.map((l) => l.sessionId);
  if (chain.length === 1) {
    const page = await store.searchMessages({ sessionIds, terms, limit: limit + 1, offset });
    return { hits: page.slice(0, limit), nextOffset: page.length > limit ? offset + limit : null };
  }
  const depth = new Map(chain.map((l, i) => [l.sessionId, i]));
  const kept: MessageSearchHit[] = [];
  let raw = offset;
  for (let pages = 0; pages < MAX_LINEAGE_PAGES; pages++) {
    const page = await store.searchMessages({ sessionIds, terms, limit: LINEAGE_PAGE, offset: raw });
    const held = await heldNearer(store, chain, page);
    for (const hit of page) {
      const at = depth.get(hit.event.sessionId) ?? 0;
      const upTo = chain[at]?.upTo;
      const passed = (upTo !== undefined && hit.event.seq > upTo) || held.has(hit);
      if (!passed) {
        if (kept.length === limit) return { hits: kept, nextOffset: raw };
        kept.push(hit);
      }
      raw++;
    }
    if (page.length < LINEAGE_PAGE) return { hits: kept, nextOffset: null };
  }
  return { hits: kept, nextOffset: raw };
}

/** The hits of `page` from an ancestor whose message a nearer session of `chain` holds too (by its log keys). */
async function heldNearer(
  store: EventStore,
  chain: readonly Lineage[],
  page: readonly MessageSearchHit[],
): Promise<Set<MessageSearchHit>> {
  const held = new Set<MessageSearchHit>();
  for (const [at, nearer] of chain.entries()) {
    const further = page.filter((h) => chain.findIndex((l) => l.sessionId === h.event.sessionId) > at && !held.has(h));
    const keys = [
      ...new Set(
        further.flatMap((h) => (h.event.type === "message.appended" ? [messageKey(h.event.data.message.id)] : [])),
      ),
    ];
    if (keys.length === 0) continue;
    const known = await store.knownKeys(nearer.sessionId, keys);
    for (const hit of further) {
      if (hit.event.type === "message.appended" && known.has(messageKey(hit.event.data.message.id))) held.add(hit);
    }
  }
  return held;
}

/** The options checked, defaults filled: ValidationError naming the first that is wrong. */
function checkRecallOptions(options: RecallOptions): Required<RecallOptions> {
  if (typeof options !== "object" || options === null) {
    throw new ValidationError("recall takes an options object", ["options: not an object"]);
  }
  checkOptionKeys("recall", options, { limit: true, offset: true, lineage: true });
  const { limit = DEFAULT_RECALL_LIMIT, offset = 0, lineage = true } = options;
  for (const [name, value, max] of [
    ["limit", limit, MAX_RECALL_LIMIT],
    ["offset", offset, Number.MAX_SAFE_INTEGER],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < (name === "limit" ? 1 : 0) || value > max) {
      throw new ValidationError(
        `recall's ${name} must be a whole number from ${name === "limit" ? 1 : 0} to ${max}`,
        [`${name}: ${String(value)}`],
        { path: name },
      );
    }
  }
  if (typeof lineage !== "boolean") {
    throw new ValidationError("recall's lineage must be true or false", [`lineage: ${String(lineage)}`], {
      path: "lineage",
    });
  }
  return { limit, offset, lineage };
}

/** A session of a recall's lineage, and the last seq of its log the session nearer to it saw (a fork's point). */
interface Lineage {
  sessionId: string;
  upTo?: number;
}

/** The session and the sessions it came from, nearest first (a parent link in each one's start). */
async function ancestry(store: EventStore, sessionId: string): Promise<Lineage[]> {
  const chain: Lineage[] = [{ sessionId }];
  for (let id = sessionId; chain.length <= MAX_LINEAGE; ) {
    const [first] = await store.readStream(id, { fromSeq: 1, toSeq: 1 });
    const parent = first?.type === "session.started" ? first.data.parent : undefined;
    if (parent === undefined || chain.some((l) => l.sessionId === parent.sessionId)) break;
    chain.push({ sessionId: parent.sessionId, ...(parent.atSeq === undefined ? {} : { upTo: parent.atSeq }) });
    id = parent.sessionId;
  }
  return chain;
}

/** For each `<session>\n<message id>` a compaction superseded, the first compaction that did. */
async function supersededMessages(store: MessageSearch, sessionIds: readonly string[]): Promise<Map<string, string>> {
  const superseders = new Map<string, string>();
  if (sessionIds.length === 0) return superseders;
  for (const event of await store.compactionsOf(sessionIds)) {
    if (event.type !== "messages.superseded") continue;
    for (const target of event.data.targets) {
      const key = `${event.sessionId}\n${target}`;
      if (!superseders.has(key)) superseders.set(key, event.data.compactionId);
    }
  }
  return superseders;
}

/** `text` around the first of `terms` it holds (or its start), whitespace folded to single spaces. */
function snippet(text: string, terms: readonly string[]): string {
  const lower = text.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const found = lower.indexOf(term);
    if (found >= 0 && (at < 0 || found < at)) at = found;
  }
  const start = Math.max(0, at - SNIPPET_SIDE);
  const end = Math.min(text.length, Math.max(at, 0) + SNIPPET_SIDE);
  const cut = text.slice(start, end).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${cut}${end < text.length ? "…" : ""}`;
}

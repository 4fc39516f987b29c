import type { AgentInputItem } from "@openai/agents-core";
import { type LiveEntry, type SessionState, ValidationError } from "@palimpsest/core";
import type { MessageInput, SessionWrite } from "@palimpsest/runtime";
import { callIdOf, type ItemRole, itemRole, type StoredItems, sameItems, storedItems } from "./agent-item.ts";
import type { MutatedItems } from "./history-mutations.ts";
import { messagesOfItems } from "./item-projection.ts";
import { itemsPerMessage } from "./item-rendering.ts";

/** One write the adapter makes: a plain append, or a rewrite of the view's tail. */
export type HistoryWrite = Extract<SessionWrite, { kind: "append" | "rewrite" }>;

const NO_CALLS: ReadonlySet<string> = new Set();

/** The items of each live message, rendered over the whole view (a rendered result needs its call's kind). */
function liveItems(state: Readonly<SessionState>): AgentInputItem[][] {
  return itemsPerMessage(state.live.map((e) => e.message));
}

/** The items of the live messages from `start` on. */
function itemsFrom(perMessage: readonly AgentInputItem[][], start: number): AgentInputItem[] {
  return perMessage.slice(start).flat();
}

/**
 * The write that appends `items` to the view of `state`. Plain, unless calls are waiting and the batch
 * leaves one unanswered before other items: then the waiting run (and the results it already has) is rewritten
 * together with the batch, so a continuing run of calls joins it (D1) and an abandoned approval's calls
 * are withdrawn unanswered before the new input (D2), with every item kept. So is the view's last run
 * when it was withdrawn with a call the batch answers (its result popped, then given again). `answered`
 * (here and below): which call ids of the view and the batch have a result in the log (see answeredCalls).
 */
export function planAppend(
  state: Readonly<SessionState>,
  answered: ReadonlySet<string>,
  items: readonly AgentInputItem[],
  options: { turnId?: string; idempotencyKey?: string },
): HistoryWrite | undefined {
  if (items.length === 0) return undefined;
  const owner = [...state.pendingCalls.values()][0];
  const start =
    owner === undefined
      ? reopens(state, items)
      : abandons(state.pendingCalls, items)
        ? state.live.findIndex((e) => e.message.id === owner)
        : undefined;
  if (start === undefined) return { kind: "append", messages: messagesOfItems(items, NO_CALLS), ...options };
  const tail = state.live.slice(start);
  const tailItems = itemsFrom(liveItems(state), start);
  const messages = messagesOfItems([...tailItems, ...items], answered);
  const carried = coveringCount(messages, tailItems.length);
  return tailWrite(tail, messages.slice(0, carried), messages.slice(carried), options);
}

/**
 * The index of the view's last message when it is a withdrawn run holding, unanswered, the call the
 * batch's first item answers (nothing waits on it, so a plain append of the result would be refused).
 */
function reopens(state: Readonly<SessionState>, items: readonly AgentInputItem[]): number | undefined {
  const first = items[0] as AgentInputItem;
  const id = itemRole(first) === "result" ? callIdOf(first) : undefined;
  const last = state.live.length - 1;
  const run = storedItems(state.live[last]?.message.metadata);
  if (id === undefined || run === undefined) return undefined;
  const holds = (role: ItemRole) => run.some((item) => itemRole(item) === role && callIdOf(item) === id);
  return holds("call") && !holds("result") ? last : undefined;
}

/**
 * Whether `items` leave a waiting call unanswered: something other than a result comes before every
 * waiting call has its result (a batch of results alone may leave some waiting, as an interruption does).
 */
function abandons(pending: ReadonlyMap<string, string>, items: readonly AgentInputItem[]): boolean {
  const waiting = new Set(pending.keys());
  for (const item of items) {
    if (waiting.size === 0) return false;
    if (itemRole(item) !== "result") return true;
    const id = callIdOf(item);
    if (id !== undefined) waiting.delete(id);
  }
  return false;
}

/**
 * The write that removes the view's last `count` items and puts `replacement` in their place. The view
 * is rewritten from the start of the run that holds the first removed item (a call and its results move
 * together), keeping what stands before it.
 */
export function planReplaceSuffix(
  state: Readonly<SessionState>,
  answered: ReadonlySet<string>,
  count: number,
  replacement: readonly AgentInputItem[],
  options: { turnId?: string; idempotencyKey?: string },
): HistoryWrite | undefined {
  if (count === 0) return planAppend(state, answered, replacement, options);
  const perMessage = liveItems(state);
  let start = state.live.length;
  for (let left = count; start > 0 && left > 0; ) left -= (perMessage[--start] as AgentInputItem[]).length;
  start = runStart(state.live, start);
  const tail = state.live.slice(start);
  const tailItems = itemsFrom(perMessage, start);
  const kept = tailItems.slice(0, tailItems.length - count);
  if (kept.length === 0) return tailWrite(tail, [], messagesOfItems(replacement, NO_CALLS), options);
  return tailWrite(tail, messagesOfItems([...kept, ...replacement], answered), [], options);
}

/** The items of the view, each with the index of the live message it comes from. */
export function viewItems(state: Readonly<SessionState>): { items: AgentInputItem[]; owners: number[] } {
  const perMessage = liveItems(state);
  return { items: perMessage.flat(), owners: perMessage.flatMap((list, index) => list.map(() => index)) };
}

/**
 * The write of mutated items: the live messages whose items changed (widened to whole runs, with the
 * results that answer them) are replaced by messages holding their new items, in one retraction.
 */
export function planMutation(
  state: Readonly<SessionState>,
  answered: ReadonlySet<string>,
  change: MutatedItems,
): HistoryWrite | undefined {
  const start = runStart(state.live, change.from);
  let end = change.to;
  while (end + 1 < state.live.length && state.live[end + 1]?.message.role === "tool") end++;
  const items = change.items.filter(
    (item, i): item is AgentInputItem =>
      item !== undefined && (change.owners[i] as number) >= start && (change.owners[i] as number) <= end,
  );
  return tailWrite(state.live.slice(start, end + 1), messagesOfItems(items, answered), [], {});
}

/** The expected suffix check of a `replace_suffix` transaction: VALIDATION when the view does not end with it. */
export function checkSuffix(state: Readonly<SessionState>, expected: readonly AgentInputItem[]): void {
  const { items } = viewItems(state);
  if (expected.length <= items.length && sameItems(items.slice(items.length - expected.length), expected)) return;
  throw new ValidationError(
    `the session's last ${expected.length} item(s) are not the transaction's expectedSuffix`,
    [`expectedSuffix: does not match the stored history (${items.length} items)`],
    { path: "transaction.expectedSuffix" },
  );
}

/** The index where the run holding live message `index` starts: back over tool results to the calls they answer. */
function runStart(live: readonly LiveEntry[], index: number): number {
  let start = index;
  while (start > 0 && live[start]?.message.role === "tool") start--;
  const head = live[start]?.message;
  if (head !== undefined && head.role !== "tool" && (head.toolCalls?.length ?? 0) === 0 && start < index) start++;
  return start;
}

/** How many of `messages` it takes to hold their first `items` items (the run a rewrite carries over). */
function coveringCount(messages: readonly MessageInput[], items: number): number {
  let covered = 0;
  let count = 0;
  while (covered < items && count < messages.length) {
    const stored = (messages[count] as MessageInput).metadata?.openaiAgents as StoredItems;
    covered += stored.items.length;
    count++;
  }
  return count;
}

function tailWrite(
  tail: readonly LiveEntry[],
  replacements: MessageInput[],
  append: MessageInput[],
  options: { turnId?: string; idempotencyKey?: string },
): HistoryWrite | undefined {
  if (tail.length === 0) {
    return append.length === 0 ? undefined : { kind: "append", messages: [...replacements, ...append], ...options };
  }
  return {
    kind: "rewrite",
    rewrite: {
      mode: "retract",
      targets: tail.map((e) => e.message.id),
      ...(replacements.length === 0 ? {} : { replacements }),
      ...(append.length === 0 ? {} : { append }),
      ...options,
    },
  };
}

/** The write that removes the view's newest item (its run rewritten without it), and that item; nothing on an empty view. */
export function planPop(
  state: Readonly<SessionState>,
  answered: ReadonlySet<string>,
): { write?: HistoryWrite; item?: AgentInputItem } {
  if (state.live.length === 0) return {};
  // Back to the run of the newest message that has an item (one that renders to none, say an imported
  // message of reasoning alone, is withdrawn with it).
  const perMessage = liveItems(state);
  let start = runStart(state.live, state.live.length - 1);
  let tailItems = itemsFrom(perMessage, start);
  while (tailItems.length === 0 && start > 0) {
    start = runStart(state.live, start - 1);
    tailItems = itemsFrom(perMessage, start);
  }
  const tail = state.live.slice(start);
  const item = tailItems.pop();
  const write = tailWrite(tail, messagesOfItems(tailItems, answered), [], {});
  return write === undefined ? {} : item === undefined ? { write } : { write, item };
}

/** The write that withdraws every live message (a retraction: the log keeps them); nothing on an empty view. */
export function planClear(state: Readonly<SessionState>): HistoryWrite | undefined {
  return tailWrite(state.live, [], [], {});
}

/**
 * The write that makes the history `items`: a provider's compaction item followed by the suffix it
 * keeps (D4). The compaction is recorded as an import: every live message before the longest stored
 * tail the suffix starts with is superseded by one message holding the compaction item, and the rest of
 * the suffix is appended. Nothing when the view already holds exactly these items.
 */
export function planCompactionImport(
  state: Readonly<SessionState>,
  items: readonly AgentInputItem[],
): HistoryWrite | undefined {
  const [marker, ...suffix] = items;
  if (marker === undefined || (marker as { type?: unknown }).type !== "compaction") {
    throw new ValidationError(
      "replaceHistoryWithCompaction needs a compaction item first",
      ["items[0]: not a compaction item"],
      {
        path: "items[0]",
      },
    );
  }
  const perMessage = liveItems(state);
  if (sameItems(perMessage.flat(), items)) return undefined;
  const live = state.live;
  let keep = live.length;
  let keptItems = 0;
  for (let b = 1; b < live.length; b++) {
    const tailItems = itemsFrom(perMessage, b);
    if (tailItems.length <= suffix.length && sameItems(tailItems, suffix.slice(0, tailItems.length))) {
      keep = b;
      keptItems = tailItems.length;
      break;
    }
  }
  const markerMessages = messagesOfItems([marker], NO_CALLS);
  const append = messagesOfItems(suffix.slice(keptItems), NO_CALLS);
  if (live.length === 0) return { kind: "append", messages: [...markerMessages, ...append] };
  return {
    kind: "rewrite",
    rewrite: {
      mode: "import",
      targets: live.slice(0, keep).map((e) => e.message.id),
      replacements: markerMessages,
      ...(append.length === 0 ? {} : { append }),
      policy: "openai-compaction",
    },
  };
}

import type { HandoffQueuePort, Keyring } from "@palimpsest/core";
import {
  customProfile,
  isPalimpsestError,
  type Message,
  type Summarizer,
  SummarizerError,
  type TokenCounter,
} from "@palimpsest/core";
import { countMessageTokens } from "@palimpsest/core/tokenizer";
import { type CompactionSettings, Palimpsest, type RuntimeDeps, type Session } from "@palimpsest/runtime";
import { type OpenedEventStore, openEventStore } from "@palimpsest/store";
import { sqlStoreOf } from "../support/store-database.ts";

/** Something a worker reaches (a write about to start, a summary being written): the fault plan may stop there. */
export type Hook = (name: string) => Promise<void>;

/**
 * Tokens as a quarter of the characters, with the real per-message costs: counts are measured once at
 * insertion and carried in events, so the suites need no real tokenizer (and workers start without
 * loading one).
 */
export const cheapCounter: TokenCounter = {
  encoding: "o200k_base",
  countText: (text) => Math.ceil(text.length / 4),
  countMessage: (message: Message) => countMessageTokens(message, (text) => Math.ceil(text.length / 4)),
  countMessageAsync: async (message: Message) => cheapCounter.countMessage(message),
};

/** A profile that compacts small sessions (threshold 1,500 tokens on a 4,000 window, a 300-token tail). */
const FAULT_PROFILE = customProfile({
  name: "faults",
  threshold: { floorTokens: 1_500 },
  tail: { minTokens: 300, maxTokens: 300 },
  runway: { pruneMinimumTokens: 100 },
  pruneMinOutputTokens: 20,
});

/**
 * A summarizer that calls `hook("summarizing")` before answering (so a fault plan can kill the process
 * while the summary is being written) and fails with a classified error when `fails()` says so.
 */
export function hookedSummarizer(hook: Hook, fails: () => boolean): Summarizer {
  return {
    model: "fault-summarizer",
    promptVersion: "v1",
    async summarize(request) {
      await hook("summarizing");
      if (fails()) throw new SummarizerError("rate-limited", "fault-summarizer", "simulated rate limit");
      return { text: `summary of ${request.messages.length} messages`, inputTokens: 10, outputTokens: 5 };
    },
  };
}

/** The compaction settings of the fault workers: automatic after each turn, on the small profile. */
export function faultCompaction(
  summarizer: Summarizer,
  policy: "summary" | "prune-first" = "summary",
): CompactionSettings {
  return { auto: true, policy, profile: FAULT_PROFILE, contextWindow: 4_000, summarizer };
}

/** The hook name of an append: its first event type other than message.appended (else message.appended). */
function appendHookName(events: readonly { type: string }[]): string {
  return `append:${events.find((e) => e.type !== "message.appended")?.type ?? "message.appended"}`;
}

/**
 * Calls `hook` before every write the runtime makes through `store`: appends (named by their event type),
 * snapshots, audit projection writes and the hand-off queue's decisions.
 */
export function hookWrites(store: OpenedEventStore, hook: Hook): void {
  const append = store.append.bind(store);
  store.append = async (sessionId, events, options) => {
    await hook(appendHookName(events));
    return append(sessionId, events, options);
  };
  const saveSnapshot = store.saveSnapshot.bind(store);
  store.saveSnapshot = async (snapshot) => {
    await hook("snapshot");
    return saveSnapshot(snapshot);
  };
  const sql = sqlStoreOf(store);
  const writeGuarded = sql.writeGuarded.bind(sql);
  sql.writeGuarded = async (guard, statements) => {
    await hook("audit-write");
    return writeGuarded(guard, statements);
  };
  hookQueue(store.handoffQueue, hook);
}

/** Hooks the hand-off queue's decisions, and those of every copy `withClock` makes (a runtime with a clock uses one). */
function hookQueue(queue: HandoffQueuePort, hook: Hook): void {
  const startCompletion = queue.startCompletion.bind(queue);
  queue.startCompletion = async (claim) => {
    await hook("handoff:start-completion");
    return startCompletion(claim);
  };
  const markCompleted = queue.markCompleted.bind(queue);
  queue.markCompleted = async (handoffId) => {
    await hook("handoff:mark-completed");
    return markCompleted(handoffId);
  };
  const withClock = queue.withClock.bind(queue);
  queue.withClock = (clock) => {
    const copy = withClock(clock);
    hookQueue(copy, hook);
    return copy;
  };
}

/** Options of a worker's runtime: compaction, snapshots, the hand-off clock and the after-turn callbacks. */
export type WorkerRuntimeOptions = Pick<
  RuntimeDeps,
  "compaction" | "snapshotEvery" | "handoffClock" | "onAfterTurnError" | "onAutoCompaction"
>;

/**
 * Opens a worker's store at `url` (with its writes hooked, encrypting with `keyring` when given) and the
 * runtime over it, counting with cheapCounter.
 */
export async function openWorkerRuntime(
  url: string,
  hook: Hook,
  options: WorkerRuntimeOptions = {},
  keyring?: Keyring,
): Promise<{ store: OpenedEventStore; runtime: Palimpsest }> {
  const store = await openEventStore(url, keyring === undefined ? {} : { keyring });
  hookWrites(store, hook);
  const runtime = new Palimpsest({
    store,
    counterFor: async () => cheapCounter,
    ...options,
  });
  return { store, runtime };
}

/**
 * An explicit compaction range in the middle of the view: from the first user message after the head to
 * the message before the last user message (the last exchange stays: see defect 12), or none.
 */
export function middleRange(session: Session): { fromId: string; toId: string } | undefined {
  const live = session.state.live;
  const users = live.flatMap((e, i) => (e.message.role === "user" && i > 0 ? [i] : []));
  const first = users[0];
  const last = users.at(-1);
  if (first === undefined || last === undefined || last - 1 <= first) return undefined;
  const from = live[first];
  const to = live[last - 1];
  return from === undefined || to === undefined ? undefined : { fromId: from.message.id, toId: to.message.id };
}

/** What a worker reports of an error: its code and the details that say which race it lost. */
export interface ReportedError {
  code: string;
  rule?: string;
  subject?: string;
  message: string;
  stack?: string;
}

/** The report of `error`: a Palimpsest error's code and rule or subject, or "CRASH" for anything else. */
export function reportError(error: unknown): ReportedError {
  const message = error instanceof Error ? error.message : String(error);
  if (!isPalimpsestError(error)) {
    return { code: "CRASH", message, ...(error instanceof Error && error.stack ? { stack: error.stack } : {}) };
  }
  const details = error.details as { rule?: unknown; subject?: unknown };
  return {
    code: error.code,
    message,
    ...(typeof details.rule === "string" ? { rule: details.rule } : {}),
    ...(typeof details.subject === "string" ? { subject: details.subject } : {}),
  };
}

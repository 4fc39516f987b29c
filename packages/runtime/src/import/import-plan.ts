import {
  boundedId,
  type CountedMessage,
  type DomainEvent,
  decide,
  definedFields,
  evolve,
  ID_LIMITS,
  type ImportedSession,
  type ImportItem,
  logKeysOf,
  type SessionCommand,
  type SessionStarted,
  type SessionState,
  type StoredEvent,
  supersedeFor,
  type TokenCounter,
} from "@palimpsest/core";
import { type Revision, revisionId } from "./revisions.ts";

/** The events that write one source session's pending items, decided in memory, with their source times. */
export interface ImportPlan {
  events: DomainEvent[];
  /** One time per event: the source's time of the item it records, or the planner's when the source has none. */
  times: string[];
  /** The view version the batch is compare-and-set on when it holds a compaction. */
  viewVersion: number | undefined;
}

/**
 * Decides the events that bring `log` (the session's state and keys, folded in place) up to date with `items`: the
 * start when `started` is given, each revision as a supersede of the live message it replaces by the
 * source's version under a new id (see revisions.ts), then messages in turns (a message with provider usage closes its turn),
 * and each compaction boundary as one supersede of everything live before it. Every command goes through
 * the decider, so the plan is exactly what a Session would have appended, in one batch.
 */
export function planImport(
  log: { state: SessionState; keys: Set<string> },
  source: ImportedSession,
  items: readonly ImportItem[],
  counter: TokenCounter,
  started?: SessionStarted,
  revised: readonly Revision[] = [],
): ImportPlan {
  const { state, keys } = log;
  const plan: ImportPlan = { events: [], times: [], viewVersion: undefined };
  const apply = (command: SessionCommand, time: string | undefined): void => {
    for (const event of decide(state, command, keys)) {
      if (event.type === "messages.superseded") plan.viewVersion ??= state.viewVersion;
      // An event the source gives no time is stored at the planner's: the state folded here is then the
      // state the stored events fold to, and a caller may keep it (ImportTarget.log).
      const at = time ?? new Date().toISOString();
      evolve(state, inMemory(state, event, at));
      for (const key of logKeysOf(event)) keys.add(key);
      plan.events.push(event);
      plan.times.push(at);
    }
  };
  if (started !== undefined) apply({ type: "start", data: started }, items[0]?.occurredAt);
  for (const { targetId, message } of revised) {
    const revision = { ...message, id: revisionId(message.id, state.lastSeq + 1) };
    const tokens = counter.countMessage(message); // ids are not counted: the source's message counts the same
    const target = state.live.find((e) => e.message.id === targetId);
    // A revision's stats are its target's: the tokens it replaces and the revision's own.
    const data = supersedeFor(state, {
      compactionId: boundedId(`${revision.id}:revision`, ID_LIMITS.compaction),
      mode: "import",
      trigger: "import",
      producer: { policy: `${source.format}-revision` },
      targets: [targetId],
      replacements: [{ kind: "stub", message: revision, tokens, at: targetId }],
      tokensBefore: target?.tokens ?? 0,
      tokensAfter: tokens,
    });
    apply({ type: "supersede", data }, undefined);
  }
  let turn: { counted: CountedMessage; time: string | undefined }[] = [];
  const flush = (turnId?: string): void => {
    if (turn.length === 0) return;
    const messages = turn.map((t) => t.counted);
    // Each message keeps its own time: the batch is decided whole, then stamped message by message.
    const times = turn.map((t) => t.time);
    const before = plan.events.length;
    apply({ type: "append-messages", messages, ...definedFields({ turnId }) }, undefined);
    for (let i = before; i < plan.events.length; i++)
      plan.times[i] = times[i - before] ?? times.at(-1) ?? (plan.times[i] as string);
    turn = [];
  };
  for (const item of items) {
    if (item.kind === "message") {
      turn.push({
        counted: { message: item.message, tokens: counter.countMessage(item.message) },
        time: item.occurredAt,
      });
      if (item.usage === undefined) continue;
      flush(item.message.id);
      apply({ type: "complete-turn", turnId: item.message.id, usage: item.usage }, item.occurredAt);
      continue;
    }
    flush();
    const tokens = counter.countMessage(item.summary);
    // The whole view leaves: what stays is the summary.
    const data = supersedeFor(state, {
      compactionId: boundedId(`${item.summary.id}:compaction`, ID_LIMITS.compaction),
      mode: "import",
      trigger: item.trigger === "manual" ? "manual" : "auto",
      producer: { policy: `${source.format}-import` },
      targets: state.live.map((e) => e.message.id),
      replacements: [{ kind: "summary", message: item.summary, tokens }],
      tokensAfter: tokens,
    });
    apply({ type: "supersede", data }, item.occurredAt);
  }
  flush();
  return plan;
}

/** The decided event as the fold sees it once stored: the next seq (ids and positions are the store's). */
function inMemory(state: SessionState, event: DomainEvent, time: string): StoredEvent {
  return {
    eventId: "",
    sessionId: state.sessionId,
    seq: state.lastSeq + 1,
    position: 0,
    schemaVersion: 1,
    occurredAt: time,
    tenantId: "",
    ...event,
  } as StoredEvent;
}

import { definedFields } from "../defined-fields.ts";
import type { EventOf, StoredEvent } from "../events/index.ts";
import { pendingCallsOf } from "./pending-calls.ts";
import { BATCH_MODES, type LiveEntry, RECENT_LIMIT, type SessionState } from "./session-state.ts";

/** Applies one stored event to the state, in place, and returns it. Events must come in seq order. */
export function evolve(state: SessionState, event: StoredEvent): SessionState {
  state.lastSeq = event.seq;
  switch (event.type) {
    case "session.started":
      state.started = event.data;
      break;
    case "message.appended":
      appendMessage(state, event.data, event.seq);
      break;
    case "turn.completed":
      state.turns += 1;
      state.lastTurn = event.data;
      state.lastTurnAt = Date.parse(event.occurredAt);
      break;
    case "messages.superseded":
      supersede(state, event.data, event.seq);
      keepRecent(state.recentCompactions, {
        mode: event.data.mode,
        tokensBefore: event.data.stats.tokensBefore,
        tokensAfter: event.data.stats.tokensAfter,
        at: Date.parse(event.occurredAt),
      });
      break;
    case "compaction.failed": {
      state.failures += 1;
      if (recordMicroFailure(state, event.data)) break;
      const { reason, retryAfterMs, configKey } = event.data;
      keepRecent(state.recentFailures, {
        reason,
        at: Date.parse(event.occurredAt),
        ...definedFields({ retryAfterMs, configKey }),
      });
      break;
    }
    case "session.handed-off":
      state.handedOffTo = event.data.toSessionId;
      break;
    case "session.erased":
      state.erasedAt = event.occurredAt;
      break;
  }
  return state;
}

/** Keeps a micro or defrag failure in `state.micro` (out of the batch anti-thrash history); false for other modes. */
function recordMicroFailure(state: SessionState, data: EventOf<"compaction.failed">["data"]): boolean {
  const first = data.targets[0];
  if (data.mode === "micro" && first !== undefined) state.micro.failedExchanges.push(first);
  else if (data.mode === "defrag" && first !== undefined) state.micro.staleDefrags.push(first);
  else return false;
  return true;
}

function keepRecent<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > RECENT_LIMIT) list.shift();
}

/** Folds a whole stream into a state (from `state`, or from nothing). */
export function foldEvents(state: SessionState, events: Iterable<StoredEvent>): SessionState {
  for (const event of events) evolve(state, event);
  return state;
}

function appendMessage(state: SessionState, data: EventOf<"message.appended">["data"], seq: number): void {
  const { message } = data;
  state.live.push({ message, tokens: data.tokens, seq });
  state.liveTokens += data.tokens;
  if (message.role === "tool" && message.toolCallId !== undefined) {
    state.pendingCalls.delete(message.toolCallId);
  } else {
    state.pendingCalls.clear();
    for (const call of message.toolCalls ?? []) state.pendingCalls.set(call.id, message.id);
  }
}

/** The view after a compaction: targets removed, replacements where their `at` target (or the first) stood. */
export function applySupersede(
  live: readonly LiveEntry[],
  data: EventOf<"messages.superseded">["data"],
  seq: number,
): LiveEntry[] {
  const targets = new Set(data.targets);
  const firstTarget = live.find((e) => targets.has(e.message.id))?.message.id;
  const next: LiveEntry[] = [];
  for (const entry of live) {
    const id = entry.message.id;
    if (!targets.has(id)) {
      next.push(entry);
      continue;
    }
    for (const r of data.replacements) {
      if ((r.at ?? firstTarget) !== id) continue;
      next.push({
        message: r.message,
        tokens: r.tokens,
        seq,
        placedBy: { compactionId: data.compactionId, kind: r.kind },
      });
    }
  }
  return next;
}

function supersede(state: SessionState, data: EventOf<"messages.superseded">["data"], seq: number): void {
  state.live = applySupersede(state.live, data, seq);
  state.liveTokens = 0;
  state.liveSummaries = 0;
  for (const entry of state.live) {
    state.liveTokens += entry.tokens;
    if (entry.placedBy?.kind === "summary" || entry.placedBy?.kind === "rolling-summary") state.liveSummaries += 1;
  }
  state.pendingCalls = pendingCallsOf(state.live);
  state.viewVersion += 1;
  state.compactionsByMode[data.mode] = (state.compactionsByMode[data.mode] ?? 0) + 1;
  if (BATCH_MODES.has(data.mode)) state.micro = { failedExchanges: [], staleDefrags: [] };
  state.lastCompaction = {
    compactionId: data.compactionId,
    seq,
    mode: data.mode,
    targets: data.targets.length,
    tokensBefore: data.stats.tokensBefore,
    tokensAfter: data.stats.tokensAfter,
  };
}

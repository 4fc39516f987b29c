import {
  type CountedMessage,
  lastTurnIndices,
  type Message,
  type MessagesSuperseded,
  type Replacement,
  type SessionCommand,
  type SessionState,
} from "@palimpsest/core";
import { turnDoneKey, turnKey } from "@palimpsest/core/testing";
import type { SessionStep } from "./session-steps.ts";
import { knownKeysOf } from "./stored-events.ts";

/** Whether the keys hold `turnId` as named by an append and not completed. */
const isOpenTurn = (keys: ReadonlySet<string>, turnId: string) =>
  keys.has(turnKey(turnId)) && !keys.has(turnDoneKey(turnId));

/**
 * Turns an abstract step into a command valid against `state`, or undefined when the step does not
 * apply (nothing to answer, nothing to compact). Pure; ids derive from `state.lastSeq`, so they stay unique.
 */
export function commandForStep(state: SessionState, step: SessionStep): SessionCommand | undefined {
  const seq = state.lastSeq + 1;
  const turnId = `t${state.turns + 1}`;
  switch (step.kind) {
    case "user":
    case "assistant": {
      const batch = answers(state, state.pendingCalls.size, step.order, [""], step.tokens, seq);
      const text = step.text.length > 0 ? step.text : "(blank)";
      const message: Message =
        step.kind === "user"
          ? { id: `m${seq}.u`, role: "user", content: [{ type: "text", text }] }
          : assistant(`m${seq}.a`, step.calls === 0 ? text : step.text, step.calls, seq);
      batch.push({ message, tokens: step.tokens });
      return { type: "append-messages", messages: batch, turnId };
    }
    case "results": {
      if (state.pendingCalls.size === 0) return undefined;
      const count = 1 + (step.count % state.pendingCalls.size);
      return {
        type: "append-messages",
        messages: answers(state, count, step.order, step.texts, step.tokens, seq),
        turnId,
      };
    }
    case "turn":
      // Only a turn an append named and not yet completed can complete (asked of the keys execute kept).
      if (state.pendingCalls.size > 0 || !isOpenTurn(knownKeysOf(state), turnId)) return undefined;
      return step.withUsage
        ? { type: "complete-turn", turnId, usage: { promptTokens: state.liveTokens, completionTokens: 1 } }
        : { type: "complete-turn", turnId };
    case "summary":
      return summary(state, step, seq);
    case "prune":
      return prune(state, step, seq);
    case "failure":
      return {
        type: "record-compaction-failure",
        data: {
          mode: "summary",
          reason: "timeout",
          attempt: step.attempt,
          targets: state.live.map((e) => e.message.id),
        },
      };
  }
}

function assistant(id: string, text: string, calls: number, seq: number): Message {
  const message: Message = { id, role: "assistant", content: text.length > 0 ? [{ type: "text", text }] : [] };
  if (calls > 0) {
    message.toolCalls = Array.from({ length: calls }, (_, k) => ({
      id: `c${seq}.${k}`,
      name: k % 2 === 0 ? "read_file" : "shell",
      arguments: JSON.stringify({ k }),
    }));
  }
  return message;
}

/** Results for `count` of the pending calls, in an order picked by `order`. */
function answers(
  state: SessionState,
  count: number,
  order: number,
  texts: readonly string[],
  tokens: number,
  seq: number,
): CountedMessage[] {
  const calls = shuffle([...state.pendingCalls.keys()], order).slice(0, count);
  return calls.map((callId, k) => ({
    message: {
      id: `m${seq}.r${k}`,
      role: "tool",
      toolCallId: callId,
      content: [{ type: "text", text: texts[k % texts.length] ?? "" }],
    },
    tokens,
  }));
}

/**
 * A contiguous span widened to whole tool groups, ending before the trailing in-flight call (and, for a
 * summary, before the last user message and reply).
 */
function summary(
  state: SessionState,
  step: Extract<SessionStep, { kind: "summary" }>,
  seq: number,
): SessionCommand | undefined {
  const live = state.live;
  const owner = state.pendingCalls.values().next().value;
  let limit = owner === undefined ? live.length : live.findIndex((e) => e.message.id === owner);
  // A summary keeps the last user message and reply (a retraction, with no replacement, may take them).
  if (step.replace) for (const i of Object.values(lastTurnIndices(live))) if (i >= 0) limit = Math.min(limit, i);
  if (limit <= 0) return undefined;
  let start = step.from % limit;
  let end = Math.min(limit, start + 1 + (step.length % limit));
  while (start > 0 && live[start]?.message.role === "tool") start--;
  while (end < live.length && live[end]?.message.role === "tool") end++;
  const span = live.slice(start, end);
  const removed = span.reduce((sum, e) => sum + e.tokens, 0);
  const replacements: Replacement[] = step.replace
    ? [
        {
          kind: "summary",
          message: { id: `m${seq}.s`, role: "user", content: [{ type: "text", text: `[summary of ${span.length}]` }] },
          tokens: step.tokens,
        },
      ]
    : [];
  const added = replacements.reduce((sum, r) => sum + r.tokens, 0);
  return supersede(
    state,
    span.map((e) => e.message.id),
    replacements,
    step.replace ? "summary" : "retract",
    removed,
    added,
    seq,
  );
}

/** Per-result stubs for some live tool results, each placed with `at` where its result stood. */
function prune(
  state: SessionState,
  step: Extract<SessionStep, { kind: "prune" }>,
  seq: number,
): SessionCommand | undefined {
  const results = state.live.filter((e) => e.message.role === "tool");
  if (results.length === 0) return undefined;
  const picked = [...new Set(step.picks.map((p) => p % results.length))].sort((a, b) => a - b);
  const targets = picked.map((i) => results[i]).filter((e) => e !== undefined);
  const replacements: Replacement[] = targets.map((e, k) => {
    const stub: Message = { id: `m${seq}.p${k}`, role: "tool", content: [{ type: "text", text: "[pruned]" }] };
    if (e.message.toolCallId !== undefined) stub.toolCallId = e.message.toolCallId;
    return { kind: "stub", message: stub, tokens: step.tokens, at: e.message.id };
  });
  const removed = targets.reduce((sum, e) => sum + e.tokens, 0);
  return supersede(
    state,
    targets.map((e) => e.message.id),
    replacements,
    "prune",
    removed,
    step.tokens * targets.length,
    seq,
  );
}

function supersede(
  state: SessionState,
  targets: string[],
  replacements: Replacement[],
  mode: MessagesSuperseded["mode"],
  removed: number,
  added: number,
  seq: number,
): SessionCommand {
  return {
    type: "supersede",
    data: {
      compactionId: `k${seq}`,
      targets,
      replacements,
      mode,
      basis: { viewVersion: state.viewVersion },
      producer: { policy: "generated" },
      stats: { tokensBefore: state.liveTokens, tokensAfter: state.liveTokens - removed + added },
      trigger: "auto",
    },
  };
}

/** A deterministic permutation picked by `seed` (Fisher-Yates over a small LCG). */
function shuffle<T>(items: T[], seed: number): T[] {
  let x = seed >>> 0 || 1;
  for (let i = items.length - 1; i > 0; i--) {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    const j = x % (i + 1);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

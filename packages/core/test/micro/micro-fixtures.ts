import {
  initialState,
  type MicroPlan,
  type MicroSettings,
  microInputFor,
  planMicro,
  resolveMicroSettings,
  rollingSummaryReplacement,
  type SessionStarted,
  type SessionState,
} from "@palimpsest/core";
import {
  appendCommand,
  assistantMessage,
  execute,
  startedData,
  supersedeData,
  toolResult,
  userMessage,
} from "@palimpsest/testing";
import { countTokens } from "../compaction/view-builders.ts";

/** Settings for the fixtures: on, every turn, the default limit and attempts unless overridden. */
export function settings(overrides: Partial<MicroSettings> = {}): MicroSettings {
  return resolveMicroSettings(overrides);
}

/**
 * A session of `turns` completed turns, each: user `u<n>`, assistant `a<n>` calling `c<n>`, result `t<n>`
 * (`toolTokens`), reply `r<n>`; every other message costs 10 tokens.
 */
export function conversation(turns: number, toolTokens = 100, started: Partial<SessionStarted> = {}): SessionState {
  const state = initialState("s-micro");
  execute(state, { type: "start", data: startedData(started) });
  for (let n = 1; n <= turns; n++) addTurn(state, n, toolTokens);
  return state;
}

/** Appends turn `n` (see `conversation`) and completes it. */
export function addTurn(state: SessionState, n: number, toolTokens = 100): void {
  const turnId = `turn${n}`;
  execute(
    state,
    appendCommand([userMessage(`u${n}`, `request ${n}`), assistantMessage(`a${n}`, "", [`c${n}`])], 10, turnId),
  );
  execute(state, appendCommand([toolResult(`t${n}`, `c${n}`, `output ${n}`)], toolTokens, turnId));
  execute(state, appendCommand([assistantMessage(`r${n}`, `done ${n}`)], 10, turnId));
  execute(state, { type: "complete-turn", turnId });
}

/** Plans a pass over `state` with a tail of `tailTokens`. */
export function plan(state: SessionState, micro: MicroSettings = settings(), tailTokens = 60): MicroPlan {
  return planMicro(microInputFor(state, micro, tailTokens));
}

/** How a simulated summarizer answers: a summary text, a failure, or (for defrag) the same text again. */
export type Answer = { text: string } | "fail";

/**
 * Plans and carries out one pass through `decide`, as the executor does: absorb and defrag commit one
 * supersede (a defrag only when it shrank), failures are recorded. Returns the plan.
 */
export function pass(state: SessionState, answer: Answer, micro = settings(), tailTokens = 60): MicroPlan {
  const planned = plan(state, micro, tailTokens);
  if (planned.kind !== "absorb" && planned.kind !== "defrag") return planned;
  const seq = state.lastSeq + 1;
  const targets = planned.kind === "absorb" ? planned.exchange.map((e) => e.message.id) : [planned.marker.message.id];
  const mode = planned.kind === "absorb" ? "micro" : "defrag";
  if (answer === "fail") {
    execute(state, { type: "record-compaction-failure", data: { mode, reason: "timeout", attempt: 1, targets } });
    return planned;
  }
  const at = planned.kind === "absorb" ? planned.at : undefined;
  const replacement = rollingSummaryReplacement(`marker-${seq}`, answer.text, countTokens, { at });
  if (planned.kind === "defrag" && replacement.tokens >= planned.marker.tokens) {
    execute(state, { type: "record-compaction-failure", data: { mode, reason: "other", attempt: 1, targets } });
    return planned;
  }
  const data = supersedeData(
    `micro-${seq}`,
    planned.kind === "absorb" ? planned.targets : targets,
    [replacement],
    state.viewVersion,
    { mode },
  );
  execute(state, { type: "supersede", data });
  return planned;
}

/** The live message ids, in view order. */
export function viewIds(state: SessionState): string[] {
  return state.live.map((e) => e.message.id);
}

/** The live rolling-summary markers. */
export function markers(state: SessionState): string[] {
  return state.live.filter((e) => e.placedBy?.kind === "rolling-summary").map((e) => e.message.id);
}

import type { LiveEntry, Message, PolicyInput, SessionState, SummaryPlan } from "@palimpsest/core";
import { summaryReplacementFor } from "@palimpsest/core";
import { OPENAI_PROFILE } from "@palimpsest/core/testing";
import { execute, supersedeData } from "@palimpsest/testing";

/** A live entry costing `tokens`, optionally placed by a compaction. */
export function live(message: Message, tokens: number, placedBy?: LiveEntry["placedBy"]): LiveEntry {
  return placedBy === undefined ? { message, tokens, seq: 1 } : { message, tokens, seq: 1, placedBy };
}

/** A system prompt. */
export function system(id: string, text = "You are an agent."): Message {
  return { id, role: "system", content: [{ type: "text", text }] };
}

/** An assistant message calling one tool `name` with `args` per call id. */
export function callTools(id: string, calls: readonly [callId: string, name: string, args?: string][]): Message {
  return {
    id,
    role: "assistant",
    content: [],
    toolCalls: calls.map(([callId, name, args]) => ({ id: callId, name, arguments: args ?? "{}" })),
  };
}

/** A tool result for `callId` with `text`, optionally an error. */
export function output(id: string, callId: string, text: string, isError = false): Message {
  const message: Message = { id, role: "tool", toolCallId: callId, content: [{ type: "text", text }] };
  if (isError) message.isError = true;
  return message;
}

/** Roughly chars/4 over the content, plus framing: a stand-in for the session's TokenCounter. */
export function countTokens(message: Message): number {
  return Math.ceil(JSON.stringify(message.content).length / 4) + 4;
}

/** A policy input over `view` on a 200K window with no output reserve (threshold 100,000, tail 10,000). */
export function policyInput(view: LiveEntry[], overrides: Partial<PolicyInput> = {}): PolicyInput {
  return {
    view,
    viewVersion: 0,
    liveTokens: view.reduce((sum, e) => sum + e.tokens, 0),
    contextWindow: 200_000,
    maxOutputTokens: 0,
    profile: OPENAI_PROFILE,
    compactions: 0,
    force: false,
    ...overrides,
  };
}

/** A policy input over a session state's live view: a 200K window, no output reserve, not forced. */
export function stateInput(state: SessionState, overrides: Partial<PolicyInput> = {}): PolicyInput {
  return {
    view: state.live,
    viewVersion: state.viewVersion,
    liveTokens: state.liveTokens,
    contextWindow: 200_000,
    maxOutputTokens: 0,
    profile: OPENAI_PROFILE,
    compactions: state.viewVersion,
    force: false,
    ...overrides,
  };
}

/** Commits a summary plan through decide with a placeholder text naming it; decide throws if it refuses. Returns the summary's id. */
export function applySummary(state: SessionState, plan: SummaryPlan): string {
  const id = `k${state.lastSeq + 1}`;
  const replacement = summaryReplacementFor(plan, `${id}.s`, `summary ${id}`, countTokens);
  const data = supersedeData(id, plan.targets, [replacement], state.viewVersion, {
    mode: "summary",
    trigger: "auto",
    stats: { tokensBefore: plan.tokensBefore, tokensAfter: 0 },
  });
  execute(state, { type: "supersede", data });
  return `${id}.s`;
}

/** The ids of a list of entries. */
export function ids(entries: readonly LiveEntry[]): string[] {
  return entries.map((e) => e.message.id);
}

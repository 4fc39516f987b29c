import type { AgentInputItem } from "@openai/agents-core";
import { type SessionState, ValidationError, type ValidationIssue } from "@palimpsest/core";
import { callIdOf, type StoredItems } from "./agent-item.ts";
import type { HistoryWrite } from "./history-plan.ts";
import { jsonCopy } from "./item-check.ts";

/**
 * A run interrupted for tool approvals, kept with the session: the serialized RunState, and the calls it
 * waits on. It lives in `metadata.openaiAgents.interruptedRun` of the message holding those calls.
 */
export interface InterruptedRun {
  v: 1;
  /** `RunState.toString()`, the run context included (or, saved with `{ context: false }`, replaced by `{}`). */
  state: string;
  /** The call ids of the state's interruptions. */
  callIds: string[];
}

/** What the adapter reads of a RunState: its interruptions (each a tool call waiting for approval) and its JSON. */
export interface InterruptedState {
  getInterruptions(): readonly { rawItem: unknown }[];
  /** The serialized state; its `context.context` is the caller's run context. */
  toJSON(): { context: Record<string, unknown> };
}

/** How saveInterruptedRun keeps a state. */
export interface SaveInterruptedRunOptions {
  /**
   * Whether the run context (the `context` the run was given: user ids, tokens, ...) is stored with the
   * state, as `RunState.toString()` has it (default true). With false it is stored as `{}`: pass the
   * context again to `interruptedRun(agent, { context })`.
   */
  context?: boolean;
}

/**
 * The record of an interrupted RunState, its run context left out unless `keepContext`. VALIDATION (path
 * `state`) for a value that is not a RunState or a state with no interruption (a run that completed has
 * nothing to resume), an interruption without a call id (a hosted MCP approval: resume that one from a
 * RunState you keep), or a run context JSON cannot hold (path `state.context`).
 */
export function interruptedRunOf(state: InterruptedState, keepContext: boolean): InterruptedRun {
  if (typeof state?.getInterruptions !== "function") {
    throw new ValidationError("saveInterruptedRun takes a RunState (result.state)", ["state: not a RunState"], {
      path: "state",
    });
  }
  const interruptions = state.getInterruptions();
  if (interruptions.length === 0) {
    throw new ValidationError("this run was not interrupted: there is nothing to resume", ["state: no interruptions"], {
      path: "state",
    });
  }
  const callIds = interruptions.map((interruption, i) => {
    const id = callIdOf(interruption.rawItem as AgentInputItem);
    if (id === undefined) {
      throw new ValidationError(
        "an interruption without a call id cannot be kept with the session",
        [`state.interruptions[${i}]: no call id`],
        { path: `state.interruptions[${i}]` },
      );
    }
    return id;
  });
  const json = state.toJSON();
  if (keepContext) checkContext(json.context.context);
  const kept = keepContext ? json : { ...json, context: { ...json.context, context: {} } };
  try {
    return { v: 1, state: JSON.stringify(kept), callIds };
  } catch (cause) {
    throw contextError(
      [`state.context: ${cause instanceof Error ? cause.message : String(cause)}`],
      "state.context",
      cause,
    );
  }
}

/**
 * VALIDATION at the first value of the run context JSON cannot hold as it is (a Map, a Date, a class
 * instance: JSON.stringify would store `{}`, a string or its fields, and the resumed run would get that).
 */
function checkContext(context: unknown): void {
  try {
    jsonCopy(context, "state.context");
  } catch (cause) {
    if (!(cause instanceof ValidationError)) throw cause;
    throw contextError(cause.details.issues, cause.details.path ?? "state.context", cause);
  }
}

/** The run context cannot be kept with the run: what to do instead. */
function contextError(issues: readonly (ValidationIssue | string)[], path: string, cause: unknown): ValidationError {
  return new ValidationError(
    "the run context cannot be stored as it is: save the run with { context: false } and pass the context to interruptedRun",
    issues,
    { cause, path },
  );
}

/**
 * The write that keeps `run` with the session: the message holding its calls replaced (a `retract`
 * rewrite, policy `openai-agents-interruption`) by the same message whose metadata also holds the run.
 * Nothing when that message keeps this run already (saved again). VALIDATION (path `state`) when a call
 * of the run is not waiting in this session (the run did not use this session, or it was resumed or
 * abandoned since); nothing is written then.
 */
export function planKeepRun(state: Readonly<SessionState>, run: InterruptedRun): HistoryWrite | undefined {
  const owners = new Set(run.callIds.map((id) => state.pendingCalls.get(id)));
  const owner = [...owners][0];
  const entry = owners.size === 1 ? state.live.find((e) => e.message.id === owner) : undefined;
  if (entry === undefined) {
    const missing = run.callIds.filter((id) => !state.pendingCalls.has(id));
    throw new ValidationError(
      `the interrupted run's calls are not waiting in session ${state.sessionId}: run it with this session, and save its state before the session moves on`,
      missing.map((id) => `state: call ${id} is not waiting for a result here`),
      { path: "state" },
    );
  }
  const { id, ...message } = entry.message;
  const stored = message.metadata?.openaiAgents as (StoredItems & { interruptedRun?: InterruptedRun }) | undefined;
  if (JSON.stringify(stored?.interruptedRun) === JSON.stringify(run)) return undefined;
  const metadata = { ...message.metadata, openaiAgents: { ...stored, interruptedRun: run } };
  return {
    kind: "rewrite",
    rewrite: {
      mode: "retract",
      targets: [id],
      replacements: [{ ...message, metadata }],
      policy: "openai-agents-interruption",
    },
  };
}

/** The run kept with the session whose calls all still wait for their results, if there is one. */
export function pendingRun(state: Readonly<SessionState>): InterruptedRun | undefined {
  const owner = [...state.pendingCalls.values()][0];
  const message = state.live.find((e) => e.message.id === owner)?.message;
  const run = (message?.metadata?.openaiAgents as { interruptedRun?: InterruptedRun } | undefined)?.interruptedRun;
  if (run?.v !== 1 || !run.callIds.every((id) => state.pendingCalls.has(id))) return undefined;
  return run;
}

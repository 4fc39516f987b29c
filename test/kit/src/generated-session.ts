import {
  initialState,
  type SessionCommand,
  type SessionStarted,
  type SessionState,
  type StoredEvent,
} from "@palimpsest/core";
import fc from "fast-check";
import { commandForStep } from "./plan-command.ts";
import { type SessionStep, type SessionStepOptions, sessionStepsArb } from "./session-steps.ts";
import { execute } from "./stored-events.ts";

/** A session planned and run in memory: its start, its valid commands, and the events they produced. */
export interface GeneratedSession {
  sessionId: string;
  started: SessionStarted;
  /** Every command, starting with `start`; each was accepted by `decide` in order. */
  commands: SessionCommand[];
  events: StoredEvent[];
  state: SessionState;
}

/** Plans each step against the running in-memory state and executes it; throws if a command is refused. */
export function runSteps(sessionId: string, started: SessionStarted, steps: readonly SessionStep[]): GeneratedSession {
  const state = initialState(sessionId);
  const commands: SessionCommand[] = [{ type: "start", data: started }];
  const events = execute(state, { type: "start", data: started });
  for (const step of steps) {
    const command = commandForStep(state, step);
    if (command === undefined) continue;
    commands.push(command);
    events.push(...execute(state, command));
  }
  return { sessionId, started, commands, events, state };
}

/** Session-started data for generated sessions. */
export function sessionStartedArb(): fc.Arbitrary<SessionStarted> {
  return fc.record({
    encoding: fc.constantFrom("o200k_base" as const, "cl100k_base" as const),
    model: fc.constantFrom("gpt-4o", "claude-sonnet-4", "llama-3"),
    contextWindow: fc.constantFrom(8_192, 128_000, 200_000),
  });
}

/** Whole valid sessions (commands and their events), for reuse by store and projection tests. */
export function generatedSessionArb(options: SessionStepOptions = {}): fc.Arbitrary<GeneratedSession> {
  return fc
    .tuple(fc.stringMatching(/^s-[a-z0-9]{1,12}$/), sessionStartedArb(), sessionStepsArb(options))
    .map(([sessionId, started, steps]) => runSteps(sessionId, started, steps));
}

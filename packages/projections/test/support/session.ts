import { initialState, type Message, type SessionCommand, type SessionState, type StoredEvent } from "@palimpsest/core";
import { appendCommand, execute, startedData } from "@palimpsest/testing";

/** A session run in memory: its state and every stored event, starting with `session.started`. */
export interface Built {
  state: SessionState;
  events: StoredEvent[];
}

/** Given: a session started with test defaults, then `commands` executed in order through decide + evolve. */
export function given(sessionId: string, ...commands: SessionCommand[]): Built {
  const state = initialState(sessionId);
  const events = execute(state, { type: "start", data: startedData() });
  for (const command of commands) events.push(...execute(state, command));
  return { state, events };
}

/** One append command per message, each costing `tokens`. */
export function appends(messages: readonly Message[], tokens = 10, turnId?: string): SessionCommand[] {
  return messages.map((m) => appendCommand([m], tokens, turnId));
}

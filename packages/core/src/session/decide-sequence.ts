import type { DomainEvent, StoredEvent } from "../events/index.ts";
import type { SessionCommand } from "./commands.ts";
import { decide } from "./decide.ts";
import { evolve } from "./evolve.ts";
import { type KnownKeys, logKeysOf } from "./log-keys.ts";
import { cloneState, type SessionState } from "./session-state.ts";

/**
 * Decides several commands as one batch: each on the state the ones before it lead to (a supersede,
 * then the append that follows it), so the batch is committed whole or not at all. Pure: `state` is
 * not changed. Throws the first command's error, as `decide` does. `known`: the log keys of all the
 * commands the log already holds; the keys each command's events add count for the ones after it.
 */
export function decideSequence(
  state: SessionState,
  commands: readonly SessionCommand[],
  known: KnownKeys,
): DomainEvent[] {
  if (commands.length === 1) return decide(state, commands[0] as SessionCommand, known);
  const scratch = cloneState(state);
  const keys = new Set(known);
  const events: DomainEvent[] = [];
  for (const command of commands) {
    for (const event of decide(scratch, command, keys)) {
      events.push(event);
      evolve(scratch, provisional(scratch, event));
      for (const key of logKeysOf(event)) keys.add(key);
    }
  }
  return events;
}

/** A decided event as the store would number it next, for folding ahead of the commit. */
function provisional(state: SessionState, event: DomainEvent): StoredEvent {
  return {
    ...event,
    eventId: `provisional-${state.lastSeq + 1}`,
    sessionId: state.sessionId,
    seq: state.lastSeq + 1,
    position: 0,
    schemaVersion: 1,
    occurredAt: new Date().toISOString(),
    tenantId: "provisional",
  } as StoredEvent;
}

import { definedFields } from "../defined-fields.ts";
import { InvariantViolation } from "../errors.ts";
import { type DomainEvent, eventIdIssue, type MessagesSuperseded, validateEvent } from "../events/index.ts";
import { issueError } from "../input/id-limits.ts";
import type { SessionCommand } from "./commands.ts";
import { decideAppend } from "./decide-append.ts";
import { decideSupersede } from "./decide-supersede.ts";
import { decideTrims } from "./decide-trims.ts";
import { type KnownKeys, turnDoneKey, turnKey } from "./log-keys.ts";
import { sessionErased } from "./session-erased.ts";
import type { SessionState } from "./session-state.ts";

type CompleteTurn = Extract<SessionCommand, { type: "complete-turn" }>;

/**
 * The session decider: turns a command into the events that record it, or throws a typed error
 * (ValidationError, InvariantViolation, ConcurrencyConflict) when it would break an invariant.
 * Pure: the state is not changed; the caller appends the events and then evolves the state. `known` holds
 * which of the command's keys (`commandKeys(command)`) the log already has: ids must stay unique across
 * the whole history, which the state does not carry.
 */
export function decide(state: SessionState, command: SessionCommand, known: KnownKeys): DomainEvent[] {
  const sessionId = state.sessionId;
  if (state.erasedAt !== undefined) throw sessionErased(sessionId, undefined, state.erasedAt);
  if (command.type === "start") {
    if (state.started !== undefined) {
      throw new InvariantViolation("session-already-started", `session ${sessionId} already started`, { sessionId });
    }
    return [checked({ type: "session.started", data: command.data })];
  }
  if (state.started === undefined) {
    throw new InvariantViolation("session-not-started", `session ${sessionId} has not started`, { sessionId });
  }
  if (state.handedOffTo !== undefined) {
    throw new InvariantViolation(
      "session-handed-off",
      `session ${sessionId} was handed off to ${state.handedOffTo}; continue there`,
      { sessionId, ids: [state.handedOffTo] },
    );
  }
  switch (command.type) {
    case "append-messages":
      return [
        ...decideAppend(state, known, command.messages, command.turnId),
        ...decideTrims(state, known, command.messages, command.trims ?? []).map(checked),
      ];
    case "complete-turn":
      return decideCompleteTurn(state, known, command);
    case "supersede":
      return decideSupersede(
        state,
        known,
        checked({ type: "messages.superseded", data: command.data }).data as MessagesSuperseded,
      );
    case "record-compaction-failure":
      return [checked({ type: "compaction.failed", data: command.data })];
    case "hand-off":
      return [checked({ type: "session.handed-off", data: stripUndefined(command) })];
  }
}

/**
 * A turn completes once: completing a turn no append named is `unknown-turn`; completing it again is a
 * no-op (no event), so a retry after a crash between the commit and its answer succeeds.
 */
function decideCompleteTurn(state: SessionState, known: KnownKeys, command: CompleteTurn): DomainEvent[] {
  const event = checked({ type: "turn.completed", data: stripUndefined(command) });
  if (known.has(turnDoneKey(command.turnId))) return [];
  if (!known.has(turnKey(command.turnId))) {
    throw new InvariantViolation(
      "unknown-turn",
      `turn ${command.turnId} was never named by an append (append with { turnId: ${JSON.stringify(command.turnId)} } first)`,
      { sessionId: state.sessionId, ids: [command.turnId] },
    );
  }
  return [event];
}

/**
 * Validates the event's data against its schema and the ids it creates against their limits (ID_LIMITS),
 * so a bad command fails before it reaches a store.
 */
function checked(event: { type: string; data: unknown }): DomainEvent {
  const valid = validateEvent(event);
  const issue = eventIdIssue(valid);
  if (issue !== undefined) throw issueError(valid.type, issue);
  return valid;
}

function stripUndefined<T extends { type: string }>(command: T): Omit<T, "type"> {
  const { type: _type, ...rest } = command;
  return definedFields(rest) as Omit<T, "type">;
}

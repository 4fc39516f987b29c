import type { DomainEvent } from "../events/index.ts";
import type { SessionCommand } from "./commands.ts";

/**
 * The ids a session's log holds that must stay unique across its whole history, as keys of one set:
 * `message:<id>` (appended or placed), `result:<call id>` (a call a tool result answered), `compaction:<id>`,
 * `turn:<id>` (named by an append) and `turn-done:<id>` (completed). The state does not carry them (they
 * grow with the history); the store keeps them beside the log and the decider is given the ones a command
 * asks about (see `commandKeys`), so a snapshot and a resume stay the size of the live view.
 */
export type LogKey = string;

/** The log keys the decider was told the log already holds (a subset of the command's `commandKeys`). */
export type KnownKeys = ReadonlySet<LogKey>;

/** No key known: the keys of a session with no events. */
export const NO_KEYS: KnownKeys = new Set();

/** The key of a message id. */
export const messageKey = (id: string): LogKey => `message:${id}`;
/** The key of a tool call id that has a result. */
export const resultKey = (callId: string): LogKey => `result:${callId}`;
/** The call ids among `keys` that have a result (the inverse of resultKey). */
export function callsAnsweredIn(keys: Iterable<LogKey>): Set<string> {
  const calls = new Set<string>();
  for (const key of keys) if (key.startsWith("result:")) calls.add(key.slice("result:".length));
  return calls;
}
/** The key of a compaction id. */
export const compactionKey = (id: string): LogKey => `compaction:${id}`;
/** The key of a turn id an append named. */
export const turnKey = (id: string): LogKey => `turn:${id}`;
/** The key of a completed turn id. */
export const turnDoneKey = (id: string): LogKey => `turn-done:${id}`;

/**
 * The keys one event adds to its session's log: what a store writes beside it (each append computes them
 * once, in the store, from the events it validated: a caller's word for them is not taken). Not the same
 * set as freshKeysOf's (what must be absent: no `result:` key of an answered call, no `turn:` key, but a
 * `result:` key for each call opened) nor commandKeys' (what the decider asks about); decideSequence also
 * adds them, between the commands of one batch, to what the next command is decided on.
 */
export function logKeysOf(event: Pick<DomainEvent, "type" | "data">): LogKey[] {
  const keys: LogKey[] = [];
  const e = event as DomainEvent;
  switch (e.type) {
    case "message.appended": {
      const { message, turnId } = e.data;
      keys.push(messageKey(message.id));
      if (message.role === "tool" && message.toolCallId !== undefined) keys.push(resultKey(message.toolCallId));
      if (turnId !== undefined) keys.push(turnKey(turnId));
      break;
    }
    case "messages.superseded":
      keys.push(compactionKey(e.data.compactionId));
      for (const { message } of e.data.replacements) {
        keys.push(messageKey(message.id));
        if (message.toolCallId !== undefined) keys.push(resultKey(message.toolCallId));
      }
      break;
    case "turn.completed":
      keys.push(turnDoneKey(e.data.turnId));
      break;
  }
  return keys;
}

/**
 * The keys a decided batch needs the log not to hold yet, for the store to check under the session's lock
 * (AppendOptions.freshKeys): each message id it appends or places, each call an appended assistant
 * message opens (no result of it may be in the log), its compaction ids and the turns it completes: the
 * keys whose presence makes the decider refuse. A result answering a waiting call is accepted whatever the
 * log holds (a call a retraction reopened is answered again), so it is not among them. A decision made
 * without the log's keys is right exactly when none of these is taken. A different set from the keys the
 * batch writes (logKeysOf), by design: computed once per decided batch, by the runtime that decided it.
 */
export function freshKeysOf(events: Iterable<Pick<DomainEvent, "type" | "data">>): LogKey[] {
  const keys = new Set<LogKey>();
  for (const event of events) {
    const e = event as DomainEvent;
    if (e.type === "message.appended") {
      const { message } = e.data;
      keys.add(messageKey(message.id));
      for (const call of message.toolCalls ?? []) keys.add(resultKey(call.id));
    } else if (e.type === "messages.superseded") {
      keys.add(compactionKey(e.data.compactionId));
      for (const r of e.data.replacements) keys.add(messageKey(r.message.id));
    } else if (e.type === "turn.completed") keys.add(turnDoneKey(e.data.turnId));
  }
  return [...keys];
}

/** Every key a run of events adds, in one set (the known keys of an in-memory log). */
export function keysOfEvents(events: Iterable<Pick<DomainEvent, "type" | "data">>): Set<LogKey> {
  const keys = new Set<LogKey>();
  for (const event of events) for (const key of logKeysOf(event)) keys.add(key);
  return keys;
}

/**
 * The keys the decider asks about to decide `command`: look these up in the log, pass the ones it holds.
 * Read before the decider validates the command, so a malformed part adds no key (the decider refuses it).
 * A third set beside logKeysOf (written) and freshKeysOf (must be absent): it also asks for the `result:`
 * key a tool result answers and for both `turn:` keys of a completed turn.
 */
export function commandKeys(command: SessionCommand): LogKey[] {
  const keys: LogKey[] = [];
  const text = (value: unknown, key: (id: string) => LogKey) => {
    if (typeof value === "string") keys.push(key(value));
  };
  switch (command.type) {
    case "append-messages":
      for (const entry of Array.isArray(command.messages) ? command.messages : []) {
        const message = entry?.message;
        text(message?.id, messageKey);
        if (message?.role === "tool") text(message.toolCallId, resultKey);
        for (const call of Array.isArray(message?.toolCalls) ? message.toolCalls : []) text(call?.id, resultKey);
      }
      for (const trim of Array.isArray(command.trims) ? command.trims : []) text(trim?.stub?.message?.id, messageKey);
      break;
    case "supersede":
      text(command.data?.compactionId, compactionKey);
      for (const r of Array.isArray(command.data?.replacements) ? command.data.replacements : []) {
        text(r?.message?.id, messageKey);
      }
      break;
    case "complete-turn":
      text(command.turnId, turnKey);
      text(command.turnId, turnDoneKey);
      break;
  }
  return keys;
}

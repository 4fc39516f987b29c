import {
  type DomainEvent,
  decide,
  EVENT_KINDS,
  evolve,
  logKeysOf,
  type SessionCommand,
  type SessionState,
  type StoredEvent,
} from "@palimpsest/core";

/** Envelope fields a pure test may pin; the rest are derived deterministically from the seq. */
export interface StampOptions {
  /** Seq of the first event (default 1). */
  firstSeq?: number;
  /** Global position of the first event (default: equal to its seq). */
  firstPosition?: number;
  tenantId?: string;
  occurredAt?: string;
}

/** Wraps domain events in envelopes (gapless seq, position, ids) as a store would, for pure tests. */
export function toStoredEvents(
  sessionId: string,
  events: readonly DomainEvent[],
  options: StampOptions = {},
): StoredEvent[] {
  const firstSeq = options.firstSeq ?? 1;
  const firstPosition = options.firstPosition ?? firstSeq;
  return events.map((event, i) => {
    const seq = firstSeq + i;
    return {
      eventId: `evt-${sessionId}-${seq}`,
      sessionId,
      seq,
      position: firstPosition + i,
      schemaVersion: EVENT_KINDS[event.type].version,
      occurredAt: options.occurredAt ?? new Date(Date.UTC(2025, 0, 1, 0, 0, seq)).toISOString(),
      tenantId: options.tenantId ?? "default",
      ...event,
    } as StoredEvent;
  });
}

/** The log keys of the in-memory logs `execute` ran, by state (the store keeps them beside its log). */
const keysByState = new WeakMap<SessionState, Set<string>>();

/**
 * The log keys of everything `execute` recorded on `state` (what a store's knownKeys would answer): what
 * a pure test passes to `decide` as `known`. Empty for a state `execute` never ran on.
 */
export function knownKeysOf(state: SessionState): Set<string> {
  let keys = keysByState.get(state);
  if (keys === undefined) {
    keys = new Set();
    keysByState.set(state, keys);
  }
  return keys;
}

/**
 * Runs one command against an in-memory state the way a store would: decide (told the keys of what it
 * recorded before), stamp the events after `state.lastSeq`, evolve the state in place and keep their
 * keys. Returns the stored events; decide's errors propagate.
 */
export function execute(state: SessionState, command: SessionCommand): StoredEvent[] {
  const keys = knownKeysOf(state);
  const stored = toStoredEvents(state.sessionId, decide(state, command, keys), { firstSeq: state.lastSeq + 1 });
  for (const event of stored) {
    evolve(state, event);
    for (const key of logKeysOf(event)) keys.add(key);
  }
  return stored;
}

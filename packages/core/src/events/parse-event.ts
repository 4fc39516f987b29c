import { ValidationError } from "../errors.ts";
import { parseInput } from "../input/parse-input.ts";
import { isValidated, markValidated } from "../input/validated.ts";
import type { RawStoredEvent } from "./envelope.ts";
import { type DomainEvent, EVENT_KINDS, type EventType, isEventType } from "./event-types.ts";
import { upcast } from "./upcast.ts";

/**
 * A stored event whose data is validated and at its current version. The events an append writes and
 * returns have their data deeply frozen (validated once, see validateEvent): copy it to change it. Events
 * read back from a store (an idempotent retry's originals too) are not frozen.
 */
export type StoredEvent = Omit<RawStoredEvent, "type" | "data"> & DomainEvent;

/**
 * Validates a domain event's data against its kind's current schema; throws ValidationError. The data
 * returned is deeply frozen and marked as validated (markValidated), and data marked so is returned as it
 * is, unparsed: an event the decider made reaches the store's append without being parsed again. Data
 * with anything but plain JSON in it (a Date in a message's metadata) is neither frozen nor marked.
 */
export function validateEvent(event: { type: string; data: unknown }): DomainEvent {
  if (!isEventType(event.type)) {
    throw new ValidationError(
      `unknown event type: ${event.type}`,
      [{ path: "type", code: "custom", message: `not one of ${Object.keys(EVENT_KINDS).join(", ")}` }],
      { path: "type" },
    );
  }
  const schema = EVENT_KINDS[event.type].schema;
  const data = isValidated(event.data, schema) ? event.data : markValidated(parseData(event.type, event.data), schema);
  return { type: event.type, data } as DomainEvent;
}

/** Reads a stored event: upcasts its data to the current version, then validates it (neither frozen nor marked). */
export function parseStoredEvent(raw: RawStoredEvent): StoredEvent {
  if (!isEventType(raw.type)) {
    throw new ValidationError(`unknown event type in log: ${raw.type}`, [`seq ${raw.seq} of ${raw.sessionId}`]);
  }
  const type: EventType = raw.type;
  const data = parseData(type, upcast(type, raw.schemaVersion, raw.data));
  return { ...raw, type, data, schemaVersion: EVENT_KINDS[type].version } as StoredEvent;
}

/** `data` parsed by the schema of `type`; ValidationError with zod's issues, the first named in the message. */
function parseData(type: EventType, data: unknown): unknown {
  return parseInput(EVENT_KINDS[type].schema, data, `${type} event`);
}

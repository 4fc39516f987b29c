import { ValidationError } from "../errors.ts";
import { describeIssues } from "../input/describe-issues.ts";
import type { RawStoredEvent } from "./envelope.ts";
import { type DomainEvent, EVENT_KINDS, type EventType, isEventType } from "./event-types.ts";
import { upcast } from "./upcast.ts";

/** A stored event whose data is validated and at its current version. */
export type StoredEvent = Omit<RawStoredEvent, "type" | "data"> & DomainEvent;

/** Validates a domain event's data against its kind's current schema; throws ValidationError. */
export function validateEvent(event: { type: string; data: unknown }): DomainEvent {
  if (!isEventType(event.type)) {
    throw new ValidationError(
      `unknown event type: ${event.type}`,
      [{ path: "type", code: "custom", message: `not one of ${Object.keys(EVENT_KINDS).join(", ")}` }],
      { path: "type" },
    );
  }
  const parsed = EVENT_KINDS[event.type].schema.safeParse(event.data);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    throw new ValidationError(`invalid ${event.type} event`, issues, {
      cause: parsed.error,
      path: issues[0]?.path ?? "(root)",
    });
  }
  return { type: event.type, data: parsed.data } as DomainEvent;
}

/** Reads a stored event: upcasts its data to the current version, then validates it. */
export function parseStoredEvent(raw: RawStoredEvent): StoredEvent {
  if (!isEventType(raw.type)) {
    throw new ValidationError(`unknown event type in log: ${raw.type}`, [`seq ${raw.seq} of ${raw.sessionId}`]);
  }
  const type: EventType = raw.type;
  const event = validateEvent({ type, data: upcast(type, raw.schemaVersion, raw.data) });
  return { ...raw, ...event, schemaVersion: EVENT_KINDS[type].version } as StoredEvent;
}

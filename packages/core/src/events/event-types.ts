import type { z } from "zod";
import {
  CompactionFailedSchema,
  MessageAppendedSchema,
  MessagesSupersededSchema,
  SessionErasedSchema,
  SessionHandedOffSchema,
  SessionStartedSchema,
  TurnCompletedSchema,
} from "./event-data.ts";

/** Turns data stored at one schema version into data of the next. */
export type Upcaster = (data: unknown) => unknown;

/**
 * One event kind: its current schema version, its data schema and, once the version is past 1, the
 * upcasters that lift stored data to it (`upcasters[v - 1]` lifts version v to v + 1).
 */
export interface EventKind {
  readonly version: number;
  readonly schema: z.ZodType;
  readonly upcasters?: readonly Upcaster[];
}

/**
 * Every event kind with its current schema version and data schema. When a kind's data changes shape,
 * bump `version` and add the upcaster from the old version to its `upcasters` (see upcast.ts); stored
 * events are never rewritten (but by an erasure, which replaces their data by its skeleton: see
 * erase-event.ts).
 */
export const EVENT_KINDS = {
  "session.started": { version: 1, schema: SessionStartedSchema },
  "message.appended": { version: 1, schema: MessageAppendedSchema },
  "turn.completed": { version: 1, schema: TurnCompletedSchema },
  "messages.superseded": { version: 1, schema: MessagesSupersededSchema },
  "compaction.failed": { version: 1, schema: CompactionFailedSchema },
  "session.handed-off": { version: 1, schema: SessionHandedOffSchema },
  "session.erased": { version: 1, schema: SessionErasedSchema },
} as const satisfies Record<string, EventKind>;

/** The name of an event kind. */
export type EventType = keyof typeof EVENT_KINDS;

/** The data of the event kind `T`, at its current version. */
export type EventData<T extends EventType> = z.infer<(typeof EVENT_KINDS)[T]["schema"]>;

/** A domain event before it is stored: its kind and its data. */
export type DomainEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/** A domain event of one kind. */
export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;

/** Data of a session-started event. */
export type SessionStarted = EventData<"session.started">;
/** Data of a turn-completed event. */
export type TurnCompleted = EventData<"turn.completed">;
/** Data of the compaction event. */
export type MessagesSuperseded = EventData<"messages.superseded">;
/** Data of a compaction-failed event. */
export type CompactionFailed = EventData<"compaction.failed">;
/** Data of a session-handed-off event. */
export type SessionHandedOff = EventData<"session.handed-off">;

/** Data of a session-erased event. */
export type SessionErased = EventData<"session.erased">;

/** True when `type` names a known event kind. */
export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_KINDS, type);
}

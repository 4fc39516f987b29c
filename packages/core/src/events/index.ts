export type { EventMetadata, RawStoredEvent } from "./envelope.ts";
export { ERASED_TOOL_NAME, eventSkeleton, messagesIn, tombstoneMessage } from "./erase-event.ts";
export {
  BasisSchema,
  CompactionFailedSchema,
  type CompactionMode,
  CompactionModeSchema,
  CompactionStatsSchema,
  type Encoding,
  EncodingSchema,
  FailureReasonSchema,
  LinkSchema,
  MessageAppendedSchema,
  MessagesSupersededSchema,
  ProducerSchema,
  type Replacement,
  ReplacementKindSchema,
  ReplacementSchema,
  SessionErasedSchema,
  SessionHandedOffSchema,
  SessionStartedSchema,
  TurnCompletedSchema,
  type Usage,
  UsageSchema,
} from "./event-data.ts";
export { eventIdIssue } from "./event-id-limits.ts";
export {
  type CompactionFailed,
  type DomainEvent,
  EVENT_KINDS,
  type EventData,
  type EventKind,
  type EventOf,
  type EventType,
  isEventType,
  type MessagesSuperseded,
  type SessionErased,
  type SessionHandedOff,
  type SessionStarted,
  type TurnCompleted,
  type Upcaster,
} from "./event-types.ts";
export { parseStoredEvent, type StoredEvent, validateEvent } from "./parse-event.ts";
export { upcast } from "./upcast.ts";

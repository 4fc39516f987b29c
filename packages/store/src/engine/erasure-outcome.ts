import {
  type EraseOptions,
  type ErasureResult,
  EVENT_KINDS,
  eventSkeleton,
  messagesIn,
  type SessionErased,
  type StoredEvent,
  ValidationError,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { EventRow } from "./row-mapping.ts";

/** The events row columns an erasure reads back: what it rewrites, and the text it compares against. */
export interface ErasedRow {
  seq: number;
  schema_version: number;
  data: string;
}

/** One event an erasure rewrites: its skeleton's data as JSON text, at its kind's current schema version. */
export interface SkeletonRewrite {
  seq: number;
  data: string;
  version: number;
}

/** What an erasure writes and reports, decided from the session's events alone (any store writes it its own way). */
export interface ErasureOutcome {
  /** The events whose stored data or schema version differs from their skeleton's, in seq order. */
  rewrites: SkeletonRewrite[];
  /** The data of the session.erased event, appended at `result.seq`. */
  erased: SessionErased;
  result: ErasureResult;
}

/** ValidationError unless the erasure's options are well formed (a reason is text). */
export function checkEraseOptions(options: EraseOptions): void {
  if (options.reason !== undefined && typeof options.reason !== "string") {
    throw new ValidationError("an erasure's reason must be text", ["reason: not a string"], { path: "reason" });
  }
}

/**
 * The erasure of a session at `version` (its last seq) whose events (all of them, in seq order) were read
 * under its lock: each event's skeleton (core's eventSkeleton), the session.erased event's data, and the
 * result, erased at `now`.
 */
export function erasureOutcome(
  sessionId: string,
  version: number,
  events: readonly { stored: StoredEvent; row: ErasedRow }[],
  options: EraseOptions,
  now: string,
): ErasureOutcome {
  let messages = 0;
  const rewrites: SkeletonRewrite[] = [];
  for (const { stored, row } of events) {
    messages += messagesIn(stored);
    const data = JSON.stringify(eventSkeleton(stored).data);
    const schemaVersion = EVENT_KINDS[stored.type].version;
    if (data !== row.data || row.schema_version !== schemaVersion) {
      rewrites.push({ seq: row.seq, data, version: schemaVersion });
    }
  }
  const erased: SessionErased = {
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    events: events.length,
    messages,
  };
  const result = { sessionId, erased: true, erasedAt: now, seq: version + 1, events: events.length, messages };
  return { rewrites, erased, result };
}

/** A session.erased event's row: every column an append writes but the global position, times as ISO text. */
export type ErasedEventRow = Omit<EventRow, "position" | "occurred_at" | "recorded_at"> & {
  occurred_at: string;
  recorded_at: string;
  content_hash: null;
};

/**
 * The row of the session.erased event an erasure appends at `seq` (every column but its global position),
 * with `eventId` (a store that makes the erasure again after a lost answer fixes it before the first attempt).
 */
export function erasedEventRow(
  sessionId: string,
  seq: number,
  tenantId: string,
  erased: SessionErased,
  now: string,
  eventId: string = uuidv7(),
): ErasedEventRow {
  return {
    event_id: eventId,
    session_id: sessionId,
    seq,
    type: "session.erased",
    schema_version: EVENT_KINDS["session.erased"].version,
    occurred_at: now,
    causation_id: null,
    correlation_id: null,
    idempotency_key: null,
    content_hash: null,
    tenant_id: tenantId,
    data: JSON.stringify(erased),
    recorded_at: now,
  };
}

/**
 * The outcome an earlier erasure recorded, from its session.erased event (the session's last): `erased`
 * false, unless that event is `ownEventId`, the one this erasure's own earlier attempt appended before its
 * answer was lost (then it is what that attempt would have returned).
 */
export function earlierErasure(
  event: StoredEvent | undefined,
  sessionId: string,
  erasedAt: string,
  ownEventId?: string,
): ErasureResult {
  const data = event?.type === "session.erased" ? event.data : { events: 0, messages: 0 };
  return {
    sessionId,
    erased: ownEventId !== undefined && event?.type === "session.erased" && event.eventId === ownEventId,
    erasedAt,
    seq: event?.seq ?? 0,
    events: data.events,
    messages: data.messages,
  };
}

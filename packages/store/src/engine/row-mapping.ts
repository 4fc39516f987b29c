import { parseStoredEvent, type SessionSummary, StorageError, type StoredEvent } from "@palimpsest/core";
import type { Selectable } from "kysely";
import type { EventsTable, SessionsTable } from "./database-schema.ts";

/** The event columns readers select (never the engine-specific ones such as transaction_id). */
export const EVENT_COLUMNS = [
  "position",
  "event_id",
  "session_id",
  "seq",
  "type",
  "schema_version",
  "occurred_at",
  "causation_id",
  "correlation_id",
  "idempotency_key",
  "tenant_id",
  "data",
  "recorded_at",
] as const;

/** An events row as the store reads it (EVENT_COLUMNS). */
export type EventRow = Pick<Selectable<EventsTable>, (typeof EVENT_COLUMNS)[number]>;

/** A timestamp column as ISO text: PostgreSQL returns a Date, SQLite the text it stored. */
export function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}

/** Turns a row into a StoredEvent: the data JSON is parsed, upcast and validated. */
export function toStoredEvent(row: EventRow): StoredEvent {
  let data: unknown;
  try {
    data = JSON.parse(row.data);
  } catch (error) {
    throw new StorageError("read", `unreadable data in event ${row.seq} of session ${row.session_id}`, {
      cause: error,
    });
  }
  return parseStoredEvent({
    eventId: row.event_id,
    sessionId: row.session_id,
    seq: row.seq,
    position: row.position,
    type: row.type,
    schemaVersion: row.schema_version,
    occurredAt: toIso(row.occurred_at),
    recordedAt: toIso(row.recorded_at ?? row.occurred_at),
    ...(row.causation_id === null ? {} : { causationId: row.causation_id }),
    ...(row.correlation_id === null ? {} : { correlationId: row.correlation_id }),
    ...(row.idempotency_key === null ? {} : { idempotencyKey: row.idempotency_key }),
    tenantId: row.tenant_id,
    data,
  });
}

/** Turns a sessions row into the catalogue entry the port returns. */
export function toSessionSummary(row: Selectable<SessionsTable>): SessionSummary {
  return {
    sessionId: row.session_id,
    version: row.version,
    viewVersion: row.view_version,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    ...(row.erased_at === null || row.erased_at === undefined ? {} : { erasedAt: toIso(row.erased_at) }),
    ...(row.name === null || row.name === undefined ? {} : { name: row.name }),
  };
}

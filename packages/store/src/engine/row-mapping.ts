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

/** A bytes column's value as Dialect.bytesForRead selected it (base64 text, or the bytes), as bytes. */
export function bytesRead(value: string | Uint8Array | null): Uint8Array | null {
  return typeof value === "string" ? Buffer.from(value, "base64") : value;
}

/** A timestamp column as ISO text: PostgreSQL returns a Date, SQLite the text it stored. */
export function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * The field of an encrypted event's stored data that holds its data sealed (see engine/sealed-rows.ts);
 * the others are its skeleton's (core's eventSkeleton: ids, roles, token counts), readable without the key.
 */
export const SEALED_FIELD = "$sealed";

/** An event row's data JSON, parsed (a StorageError naming the event when it is not JSON). */
export function parseRowData(row: Pick<EventRow, "seq" | "session_id" | "data">): unknown {
  try {
    return JSON.parse(row.data);
  } catch (error) {
    throw new StorageError("read", `unreadable data in event ${row.seq} of session ${row.session_id}`, {
      cause: error,
    });
  }
}

/** The sealed text of parsed event data, or undefined when the data is not encrypted. */
export function sealedField(data: unknown): string | undefined {
  const sealed =
    typeof data === "object" && data !== null ? (data as Record<string, unknown>)[SEALED_FIELD] : undefined;
  return typeof sealed === "string" ? sealed : undefined;
}

/**
 * Turns a row into a StoredEvent: the data JSON (`data`, when the caller opened it already) is upcast and
 * validated. Encrypted data is a StorageError: only a store opened with the keyring reads it.
 */
export function toStoredEvent(row: EventRow, data: unknown = parseRowData(row)): StoredEvent {
  if (sealedField(data) !== undefined) {
    throw new StorageError(
      "read",
      `event ${row.seq} of session ${row.session_id} is encrypted: open the store with its keyring (the keyring option)`,
    );
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

/**
 * A row's event with only what an erasure keeps readable: an encrypted event's skeleton, stored beside its
 * sealed data, without the key (an erasure destroys the key first); any other event as it is.
 */
export function toSkeletonEvent(row: EventRow): StoredEvent {
  const data = parseRowData(row);
  if (sealedField(data) === undefined) return toStoredEvent(row, data);
  const { [SEALED_FIELD]: _sealed, ...skeleton } = data as Record<string, unknown>;
  return toStoredEvent(row, skeleton);
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

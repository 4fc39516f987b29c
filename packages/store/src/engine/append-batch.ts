import { createHash } from "node:crypto";
import {
  type AppendOptions,
  checkId,
  type DomainEvent,
  EVENT_KINDS,
  type ExpectedVersion,
  eventIdIssue,
  indexedTerms,
  issueError,
  keysOfEvents,
  StorageError,
  type StoredEvent,
  ValidationError,
  validateEvent,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import { nameOfBatch } from "./session-name.ts";

/** One validated event, ready to insert: its data serialized once as JSON text. */
export interface PreparedEvent {
  eventId: string;
  /** The validated event: what the append returns, without reading back what it wrote. */
  event: DomainEvent;
  /** When it happened: the append's source time for it, or the recording time. */
  occurredAt: string;
  schemaVersion: number;
  data: string;
  /** SHA-256 of type, schema version and data; only computed for appends with an idempotency key. */
  contentHash: string | null;
  /** The terms the search index keeps for it (core's indexedTerms); null for none, and on an encrypting store. */
  terms: string | null;
}

/** A validated batch with everything an engine needs to write it. */
export interface PreparedBatch {
  sessionId: string;
  tenantId: string;
  /** The name the batch gives the session when it creates it (see session-name.ts); never changed afterwards. */
  name: string | null;
  /** When the store writes the batch (the sessions row's times, and every event's `recorded_at`). */
  recordedAt: string;
  causationId: string | null;
  correlationId: string | null;
  idempotencyKey: string | null;
  /** With an idempotency key, the hash of the whole batch (events, metadata, tenant) a retry must match. */
  contentHash: string | null;
  expectedVersion: ExpectedVersion;
  expectedViewVersion: number | undefined;
  /** How far the view version moves when it is compare-and-set: one per compaction in the batch (at least 1). */
  viewSteps: number;
  events: PreparedEvent[];
  /** The log keys the batch's events add (core's logKeysOf), written beside them; ones already there are kept. */
  keys: string[];
  /** Keys the session's log must not hold for the batch to apply (AppendOptions.freshKeys). */
  freshKeys: readonly string[];
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * Validates every event and every id the batch stores, each within its kind's limit (ID_LIMITS), throwing
 * ValidationError before anything is written, and prepares the batch. Any caller's events are checked; an
 * event whose data core validated already (the decider's: see validateEvent) is not parsed again. The log
 * keys the batch writes are computed here, once, from the events as validated, and, when `indexes`, the
 * terms the search index keeps. The batch is `tenantId`'s (the store's tenant, checked when it was opened).
 */
export function prepareBatch(
  sessionId: string,
  events: readonly DomainEvent[],
  options: AppendOptions,
  tenantId: string,
  indexes = true,
): PreparedBatch {
  checkId(sessionId, "sessionId", "session");
  if (events.length === 0) throw new ValidationError("an append needs at least one event", ["events: empty"]);
  const idempotencyKey =
    options.idempotencyKey === undefined ? null : checkId(options.idempotencyKey, "idempotencyKey", "idempotencyKey");
  const { causationId, correlationId } = options.metadata ?? {};
  if (causationId !== undefined) checkId(causationId, "metadata.causationId", "causation");
  if (correlationId !== undefined) checkId(correlationId, "metadata.correlationId", "correlation");
  const recordedAt = new Date().toISOString();
  const times = sourceTimes(options.occurredAt, events.length, recordedAt);
  const prepared = events.map((event, i): PreparedEvent => {
    let valid: DomainEvent;
    try {
      valid = validateEvent(event);
    } catch (error) {
      if (error instanceof ValidationError) {
        const inner = error.details.path;
        throw new ValidationError(`event ${i}: ${error.message}`, error.details.issues, {
          cause: error,
          path: inner === undefined ? `events[${i}]` : `events[${i}].${inner}`,
        });
      }
      throw error;
    }
    const tooLong = eventIdIssue(valid);
    if (tooLong !== undefined) throw issueError(`event ${i}`, { ...tooLong, path: `events[${i}].${tooLong.path}` });
    const data = JSON.stringify(valid.data);
    const schemaVersion = EVENT_KINDS[valid.type].version;
    const contentHash = idempotencyKey === null ? null : sha256(`${valid.type}\n${schemaVersion}\n${data}`);
    return {
      eventId: uuidv7(),
      event: valid,
      occurredAt: times[i] ?? recordedAt,
      schemaVersion,
      data,
      contentHash,
      terms: indexes ? indexedTerms(valid) : null,
    };
  });
  const contentHash =
    idempotencyKey === null
      ? null
      : sha256(
          JSON.stringify([prepared.map((e) => e.contentHash), tenantId, causationId ?? null, correlationId ?? null]),
        );
  return {
    sessionId,
    tenantId,
    name: nameOfBatch(prepared.map((e) => e.event)),
    recordedAt,
    causationId: causationId ?? null,
    correlationId: correlationId ?? null,
    idempotencyKey,
    contentHash,
    expectedVersion: options.expectedVersion,
    expectedViewVersion: options.viewVersion?.expected,
    viewSteps: Math.max(1, prepared.filter((e) => e.event.type === "messages.superseded").length),
    events: prepared,
    keys: [...keysOfEvents(prepared.map((e) => e.event))],
    freshKeys: (options.freshKeys ?? []).map((key, i) => checkId(key, `freshKeys[${i}]`)),
  };
}

/**
 * The stored events of a batch written with `version` as the stream's new version and `positions` as its
 * events' global positions: built from the batch as validated, without reading back what was written.
 */
export function storedEventsOf(batch: PreparedBatch, version: number, positions: readonly number[]): StoredEvent[] {
  const firstSeq = version - batch.events.length + 1;
  return batch.events.map((prepared, i): StoredEvent => {
    const position = positions[i];
    if (position === undefined) {
      throw new StorageError("append", `event ${prepared.eventId} was not returned by the insert`);
    }
    return {
      eventId: prepared.eventId,
      sessionId: batch.sessionId,
      seq: firstSeq + i,
      position,
      schemaVersion: prepared.schemaVersion,
      occurredAt: prepared.occurredAt,
      recordedAt: batch.recordedAt,
      ...(batch.causationId === null ? {} : { causationId: batch.causationId }),
      ...(batch.correlationId === null ? {} : { correlationId: batch.correlationId }),
      ...(batch.idempotencyKey === null ? {} : { idempotencyKey: batch.idempotencyKey }),
      tenantId: batch.tenantId,
      ...prepared.event,
    };
  });
}

/** The append's source times, one per event, as ISO text; ValidationError for a bad time or count. */
function sourceTimes(given: AppendOptions["occurredAt"], count: number, recordedAt: string): string[] {
  if (given === undefined) return new Array<string>(count).fill(recordedAt);
  const list = typeof given === "string" ? new Array<string>(count).fill(given) : [...given];
  if (list.length !== count) {
    throw new ValidationError(`occurredAt gives ${list.length} times for ${count} events`, [
      `occurredAt: ${list.length} times`,
    ]);
  }
  return list.map((time, i) => {
    if (time === undefined) return recordedAt;
    const ms = typeof time === "string" ? Date.parse(time) : Number.NaN;
    if (Number.isNaN(ms)) {
      throw new ValidationError(`occurredAt[${i}] is not a time`, [`occurredAt.${i}: ${String(time)}`], {
        path: `occurredAt.${i}`,
      });
    }
    return new Date(ms).toISOString();
  });
}

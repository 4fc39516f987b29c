import { createHash } from "node:crypto";
import {
  type AppendOptions,
  type DomainEvent,
  EVENT_KINDS,
  type ExpectedVersion,
  ValidationError,
  validateEvent,
} from "@palimpsest/core";
import type { Kysely } from "kysely";
import { uuidv7 } from "uuidv7";
import type { StoreDatabase } from "./database-schema.ts";

/** The tenant of appends that name none. */
export const DEFAULT_TENANT = "default";

/** One validated event, ready to insert: its data serialized once as JSON text. */
export interface PreparedEvent {
  eventId: string;
  type: string;
  schemaVersion: number;
  data: string;
  contentHash: string;
}

/** A validated batch with everything an engine needs to write it. */
export interface PreparedBatch {
  sessionId: string;
  tenantId: string;
  occurredAt: string;
  causationId: string | null;
  correlationId: string | null;
  idempotencyKey: string | null;
  /** Hash of the whole batch (events, metadata, tenant): an idempotent retry must match it. */
  contentHash: string;
  expectedVersion: ExpectedVersion;
  expectedViewVersion: number | undefined;
  events: PreparedEvent[];
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** Validates every event (throwing ValidationError before anything is written) and prepares the batch. */
export function prepareBatch(sessionId: string, events: readonly DomainEvent[], options: AppendOptions): PreparedBatch {
  if (sessionId.length === 0) throw new ValidationError("a session id must not be empty", ["sessionId: empty"]);
  if (events.length === 0) throw new ValidationError("an append needs at least one event", ["events: empty"]);
  const prepared = events.map((event, i): PreparedEvent => {
    let valid: DomainEvent;
    try {
      valid = validateEvent(event);
    } catch (error) {
      if (error instanceof ValidationError)
        throw new ValidationError(`event ${i}: ${error.message}`, error.details.issues, { cause: error });
      throw error;
    }
    const data = JSON.stringify(valid.data);
    const schemaVersion = EVENT_KINDS[valid.type].version;
    const contentHash = sha256(`${valid.type}\n${schemaVersion}\n${data}`);
    return { eventId: uuidv7(), type: valid.type, schemaVersion, data, contentHash };
  });
  const tenantId = options.tenantId ?? DEFAULT_TENANT;
  const causationId = options.metadata?.causationId ?? null;
  const correlationId = options.metadata?.correlationId ?? null;
  const contentHash = sha256(
    JSON.stringify([prepared.map((e) => e.contentHash), tenantId, causationId, correlationId]),
  );
  return {
    sessionId,
    tenantId,
    occurredAt: new Date().toISOString(),
    causationId,
    correlationId,
    idempotencyKey: options.idempotencyKey ?? null,
    contentHash,
    expectedVersion: options.expectedVersion,
    expectedViewVersion: options.viewVersion?.expected,
    events: prepared,
  };
}

/**
 * The statement that claims the batch's versions on the sessions row, returning the new version, or no
 * row when the expected version or view version does not hold. The row lock it takes (insert-or-update
 * or update) is the per-session lock. Undefined when the batch can never apply (a new stream has view 0).
 */
export function claimVersionQuery(db: Kysely<StoreDatabase>, batch: PreparedBatch) {
  const count = batch.events.length;
  const view = batch.expectedViewVersion;
  const expected = batch.expectedVersion === "no-stream" ? 0 : batch.expectedVersion;
  if (expected === 0) {
    if (view !== undefined && view !== 0) return undefined;
    return db
      .insertInto("sessions")
      .values(newSessionRow(batch))
      .onConflict((oc) => oc.column("session_id").doNothing())
      .returning("version");
  }
  if (expected === "any" && (view === undefined || view === 0)) {
    return db
      .insertInto("sessions")
      .values(newSessionRow(batch))
      .onConflict((oc) => {
        const update = oc.column("session_id").doUpdateSet((eb) => ({
          version: eb("sessions.version", "+", count),
          updated_at: batch.occurredAt,
          ...(view === undefined ? {} : { view_version: view + 1 }),
        }));
        return view === undefined ? update : update.where("sessions.view_version", "=", view);
      })
      .returning("version");
  }
  return db
    .updateTable("sessions")
    .set((eb) => ({
      version: eb("version", "+", count),
      updated_at: batch.occurredAt,
      ...(view === undefined ? {} : { view_version: view + 1 }),
    }))
    .where("session_id", "=", batch.sessionId)
    .$if(expected !== "any", (qb) => qb.where("version", "=", expected === "any" ? 0 : expected))
    .$if(view !== undefined, (qb) => qb.where("view_version", "=", view ?? 0))
    .returning("version");
}

function newSessionRow(batch: PreparedBatch) {
  return {
    session_id: batch.sessionId,
    version: batch.events.length,
    view_version: batch.expectedViewVersion === undefined ? 0 : batch.expectedViewVersion + 1,
    created_at: batch.occurredAt,
    updated_at: batch.occurredAt,
    tenant_id: batch.tenantId,
  };
}

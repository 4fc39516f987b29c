import type { PreparedBatch } from "./append-batch.ts";
import type { Dialect } from "./dialect.ts";

/**
 * The append's SQL, written by hand rather than through kysely: it runs on every append, and its text
 * depends only on the batch's shape (expected-version kind, view version, idempotency key, size), so the
 * engines can reuse prepared statements by text. Parameters are collected in text order.
 */
export class SqlParams {
  readonly values: unknown[] = [];
  readonly dialect: Dialect;

  constructor(dialect: Dialect) {
    this.dialect = dialect;
  }

  /** Adds a parameter; returns its placeholder in the dialect (`?` on SQLite, `$n::type` on PostgreSQL). */
  add(value: unknown, pgType: string): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length, pgType);
  }
}

/**
 * The statement that claims the batch's versions on the sessions row, returning the new version, or no
 * row when the expected version or view version does not hold. The row lock it takes (insert-or-update
 * or update) is the per-session lock. An erased session (erased_at set) never matches: it takes no more
 * events. The insert writes the session's name (batch.name); an update never touches it. An existing
 * session also needs none of the batch's fresh keys in its log (a new one has no keys). Undefined when
 * the batch can never apply (a new stream has view 0). Every row it reads or writes is the batch's tenant's.
 */
export function claimVersionSql(batch: PreparedBatch, p: SqlParams): string | undefined {
  const count = batch.events.length;
  const view = batch.expectedViewVersion;
  const expected = batch.expectedVersion === "no-stream" ? 0 : batch.expectedVersion;
  const newRow = () =>
    "INSERT INTO sessions (session_id, version, view_version, created_at, updated_at, tenant_id, name) VALUES (" +
    `${p.add(batch.sessionId, "text")}, ${p.add(count, "int")}, ${p.add(view === undefined ? 0 : view + batch.viewSteps, "int")}, ` +
    `${p.add(batch.recordedAt, "timestamptz")}, ${p.add(batch.recordedAt, "timestamptz")}, ${p.add(batch.tenantId, "text")}, ` +
    `${p.add(batch.name, "text")})`;
  const freshKeys = () =>
    batch.freshKeys.length === 0
      ? ""
      : ` AND ${p.dialect.holdsNoKey(batch.freshKeys, (value, pgType) => p.add(value, pgType))}`;
  const set = () =>
    `SET version = sessions.version + ${p.add(count, "int")}, updated_at = ${p.add(batch.recordedAt, "timestamptz")}` +
    (view === undefined ? "" : `, view_version = ${p.add(view + batch.viewSteps, "int")}`);
  if (expected === 0) {
    if (view !== undefined && view !== 0) return undefined;
    return `${newRow()} ON CONFLICT (session_id, tenant_id) DO NOTHING RETURNING version`;
  }
  if (expected === "any" && (view === undefined || view === 0)) {
    const insert = newRow();
    const update = `ON CONFLICT (session_id, tenant_id) DO UPDATE ${set()}`;
    const where = ` WHERE sessions.erased_at IS NULL${view === undefined ? "" : ` AND sessions.view_version = ${p.add(view, "int")}`}${freshKeys()}`;
    return `${insert} ${update}${where} RETURNING version`;
  }
  const update =
    `UPDATE sessions ${set()} WHERE session_id = ${p.add(batch.sessionId, "text")} ` +
    `AND tenant_id = ${p.add(batch.tenantId, "text")} AND erased_at IS NULL`;
  const version = expected === "any" ? "" : ` AND version = ${p.add(expected, "int")}`;
  const viewCheck = view === undefined ? "" : ` AND view_version = ${p.add(view, "int")}`;
  return `${update}${version}${viewCheck}${freshKeys()} RETURNING version`;
}

/** The events columns an append writes, in insert order. */
export const INSERT_COLUMNS =
  "event_id, session_id, seq, type, schema_version, occurred_at, causation_id, correlation_id, idempotency_key, content_hash, tenant_id, data, recorded_at";

import { ValidationError } from "@palimpsest/core";
import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import type { AuditDatabase } from "./audit-source.ts";

/** Which compactions a question is about; every field narrows, none is required. */
export interface CompactionFilter {
  sessionId?: string;
  /** Compactions at or after this time (an ISO string or a Date). */
  since?: string | Date;
  /** Compactions before this time. */
  until?: string | Date;
  mode?: string;
  policy?: string;
  profile?: string;
  summarizerModel?: string;
  promptVersion?: string;
  trigger?: string;
}

/** Which failed compaction attempts a question is about. */
export interface FailureFilter {
  sessionId?: string;
  since?: string | Date;
  until?: string | Date;
  mode?: string;
  reason?: string;
}

/** The columns a compaction filter's fields narrow (and compactions can be grouped by). */
export const COMPACTION_COLUMNS = {
  sessionId: "session_id",
  mode: "mode",
  policy: "policy",
  profile: "profile",
  summarizerModel: "summarizer_model",
  promptVersion: "prompt_version",
  trigger: "trigger",
} as const;
/** The columns a failure filter's fields narrow. */
const FAILURE_COLUMNS = { sessionId: "session_id", mode: "mode", reason: "reason" } as const;

type Table = "audit_compactions" | "audit_failures";

/** The WHERE clause of a compaction filter. */
export function compactionWhere(
  eb: ExpressionBuilder<AuditDatabase, "audit_compactions">,
  filter: CompactionFilter,
): Expression<SqlBool> {
  return where(eb, filter, COMPACTION_COLUMNS);
}

/** The WHERE clause of a failure filter. */
export function failureWhere(
  eb: ExpressionBuilder<AuditDatabase, "audit_failures">,
  filter: FailureFilter,
): Expression<SqlBool> {
  return where(eb, filter, FAILURE_COLUMNS);
}

function where<T extends Table>(
  eb: ExpressionBuilder<AuditDatabase, T>,
  filter: CompactionFilter | FailureFilter,
  columns: Record<string, string>,
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<AuditDatabase, "audit_compactions">;
  const terms: Expression<SqlBool>[] = [];
  for (const [field, column] of Object.entries(columns)) {
    const value = (filter as Record<string, unknown>)[field];
    if (typeof value === "string") terms.push(e(column as "mode", "=", value));
  }
  if (filter.since !== undefined) terms.push(e("occurred_at", ">=", isoTime(filter.since, "since")));
  if (filter.until !== undefined) terms.push(e("occurred_at", "<", isoTime(filter.until, "until")));
  return e.and(terms);
}

/** A time bound as the ISO text both engines compare correctly; ValidationError when it is no time. */
export function isoTime(value: string | Date, name: string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new ValidationError(`${name} is not a time: ${String(value)}`, [
      `${name}: expected an ISO 8601 date or time`,
    ]);
  }
  return date.toISOString();
}

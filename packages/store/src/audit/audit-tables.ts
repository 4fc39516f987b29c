import type { ColumnType } from "kysely";

/** A timestamp: written as an ISO string; read back as a Date (PostgreSQL) or the same string (SQLite). */
type Timestamp = ColumnType<Date | string, string, string>;

/** Where the audit projector stands in the global log. */
export interface AuditCheckpointsTable {
  projector: string;
  checkpoint: string;
}

/** One row per session: where it came from, where it was handed off to, and how far the models know it. */
export interface AuditSessionsTable {
  session_id: string;
  /** Null until the session's start event has been projected. */
  started_at: Timestamp | null;
  model: string | null;
  parent_session_id: string | null;
  relation: string | null;
  /** A fork's branch point: the parent's seq its view was copied at. */
  parent_at_seq: number | null;
  handed_off_to: string | null;
  handed_off_at: Timestamp | null;
  handed_off_seq: number | null;
  last_seq: number;
}

/** One row per compaction (messages.superseded event). */
export interface AuditCompactionsTable {
  session_id: string;
  seq: number;
  compaction_id: string;
  occurred_at: Timestamp;
  mode: string;
  trigger: string;
  policy: string;
  profile: string | null;
  summarizer_model: string | null;
  prompt_version: string | null;
  targets: number;
  replacements: number;
  tokens_before: number;
  tokens_after: number;
  tokens_reclaimed: number;
  aux_tokens_in: number | null;
  aux_tokens_out: number | null;
  /** Of aux_tokens_in, read from the provider's prompt cache (migration 0020; null when not recorded). */
  aux_tokens_cache_read: number | null;
  /** Of aux_tokens_in, written to the provider's prompt cache (migration 0020; null when not recorded). */
  aux_tokens_cache_write: number | null;
  duration_ms: number | null;
}

/** One row per failed compaction attempt. */
export interface AuditFailuresTable {
  session_id: string;
  seq: number;
  occurred_at: Timestamp;
  mode: string;
  reason: string;
  attempt: number;
  targets: number;
  retry_after_ms: number | null;
}

/** A message a compaction took out of the view. */
export interface AuditSupersessionsTable {
  session_id: string;
  message_id: string;
  compaction_id: string;
  seq: number;
  ordinal: number;
}

/** A message a compaction put into the view. */
export interface AuditReplacementsTable {
  session_id: string;
  message_id: string;
  compaction_id: string;
  kind: string;
  seq: number;
  ordinal: number;
}

/** The audit read models' tables, as kysely sees them. */
export type AuditTables = {
  audit_checkpoints: AuditCheckpointsTable;
  audit_sessions: AuditSessionsTable;
  audit_compactions: AuditCompactionsTable;
  audit_failures: AuditFailuresTable;
  audit_supersessions: AuditSupersessionsTable;
  audit_replacements: AuditReplacementsTable;
};

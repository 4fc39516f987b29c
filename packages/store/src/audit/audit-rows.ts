import type { AuditFacts } from "@palimpsest/projections";
import type { Insertable } from "kysely";
import type { AuditTables } from "./audit-tables.ts";

/** The audit tables that hold one row per fact, emptied and refilled by a rebuild. */
export const AUDIT_ROW_TABLES = [
  "audit_sessions",
  "audit_compactions",
  "audit_failures",
  "audit_supersessions",
  "audit_replacements",
] as const;

/** One of the audit tables holding rows of facts. */
export type AuditRowTable = (typeof AUDIT_ROW_TABLES)[number];

/** The rows facts become, by table. */
export type AuditRows = { [T in AuditRowTable]: Insertable<AuditTables[T]>[] };

/**
 * The table rows of `facts`: one session row for every session the facts saw (its start, hand-off and
 * last seq as far as these facts know them; null where they do not), one row per compaction, failure,
 * superseded message and replacement.
 */
export function auditRows(facts: AuditFacts): AuditRows {
  const starts = new Map(facts.sessions.map((s) => [s.sessionId, s]));
  const handOffs = new Map(facts.handOffs.map((h) => [h.sessionId, h]));
  return {
    audit_sessions: [...facts.lastSeqs].map(([sessionId, lastSeq]) => {
      const s = starts.get(sessionId);
      const h = handOffs.get(sessionId);
      return {
        session_id: sessionId,
        started_at: s?.startedAt ?? null,
        model: s?.model ?? null,
        parent_session_id: s?.parentSessionId ?? null,
        relation: s?.relation ?? null,
        parent_at_seq: s?.parentAtSeq ?? null,
        handed_off_to: h?.toSessionId ?? null,
        handed_off_at: h?.handedOffAt ?? null,
        handed_off_seq: h?.seq ?? null,
        last_seq: lastSeq,
      };
    }),
    audit_compactions: facts.compactions.map((c) => ({
      session_id: c.sessionId,
      seq: c.seq,
      compaction_id: c.compactionId,
      occurred_at: c.occurredAt,
      mode: c.mode,
      trigger: c.trigger,
      policy: c.policy,
      profile: c.profile,
      summarizer_model: c.summarizerModel,
      prompt_version: c.promptVersion,
      targets: c.targets,
      replacements: c.replacements,
      tokens_before: c.tokensBefore,
      tokens_after: c.tokensAfter,
      tokens_reclaimed: c.tokensReclaimed,
      aux_tokens_in: c.auxTokensIn,
      aux_tokens_out: c.auxTokensOut,
      aux_tokens_cache_read: c.auxTokensCacheRead,
      aux_tokens_cache_write: c.auxTokensCacheWrite,
      duration_ms: c.durationMs,
    })),
    audit_failures: facts.failures.map((f) => ({
      session_id: f.sessionId,
      seq: f.seq,
      occurred_at: f.occurredAt,
      mode: f.mode,
      reason: f.reason,
      attempt: f.attempt,
      targets: f.targets,
      retry_after_ms: f.retryAfterMs,
    })),
    audit_supersessions: facts.supersessions.map((s) => ({
      session_id: s.sessionId,
      message_id: s.messageId,
      compaction_id: s.compactionId,
      seq: s.seq,
      ordinal: s.ordinal,
    })),
    audit_replacements: facts.replacements.map((r) => ({
      session_id: r.sessionId,
      message_id: r.messageId,
      compaction_id: r.compactionId,
      kind: r.kind,
      seq: r.seq,
      ordinal: r.ordinal,
    })),
  };
}

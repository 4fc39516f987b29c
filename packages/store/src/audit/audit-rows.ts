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
 * The table rows of `facts`. A session row started in these facts already carries its hand-off and
 * last seq; those of sessions started earlier arrive as updates (see writeAuditFacts).
 */
export function auditRows(facts: AuditFacts): AuditRows {
  const handOffs = new Map(facts.handOffs.map((h) => [h.sessionId, h]));
  return {
    audit_sessions: facts.sessions.map((s) => {
      const h = handOffs.get(s.sessionId);
      return {
        session_id: s.sessionId,
        started_at: s.startedAt,
        model: s.model,
        parent_session_id: s.parentSessionId,
        relation: s.relation,
        handed_off_to: h?.toSessionId ?? null,
        handed_off_at: h?.handedOffAt ?? null,
        handed_off_seq: h?.seq ?? null,
        last_seq: facts.lastSeqs.get(s.sessionId) ?? 1,
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

import type { StoredEvent } from "@palimpsest/core";

/** One compaction as the audit read model keeps it: who produced it, why, and what it reclaimed. */
export interface CompactionFact {
  sessionId: string;
  seq: number;
  compactionId: string;
  occurredAt: string;
  mode: string;
  trigger: string;
  policy: string;
  profile: string | null;
  summarizerModel: string | null;
  promptVersion: string | null;
  targets: number;
  replacements: number;
  tokensBefore: number;
  tokensAfter: number;
  /** tokensBefore − tokensAfter: negative when a compaction grew the view (a defrag can). */
  tokensReclaimed: number;
  /** The summarizer's input tokens, the cache's share included; null when not recorded. */
  auxTokensIn: number | null;
  auxTokensOut: number | null;
  /** Of auxTokensIn, those read from the provider's prompt cache; null when not recorded. */
  auxTokensCacheRead: number | null;
  /** Of auxTokensIn, those written to the provider's prompt cache; null when not recorded. */
  auxTokensCacheWrite: number | null;
  durationMs: number | null;
}

/** One failed compaction attempt: nothing was superseded. */
export interface FailureFact {
  sessionId: string;
  seq: number;
  occurredAt: string;
  mode: string;
  reason: string;
  attempt: number;
  targets: number;
  retryAfterMs: number | null;
}

/** A message a compaction took out of the view (one per target; a message leaves the view once). */
export interface SupersessionFact {
  sessionId: string;
  messageId: string;
  compactionId: string;
  seq: number;
  /** Its place among the compaction's targets. */
  ordinal: number;
}

/** A message a compaction put into the view in place of its targets. */
export interface ReplacementFact {
  sessionId: string;
  messageId: string;
  compactionId: string;
  kind: string;
  seq: number;
  /** Its place among the compaction's replacements. */
  ordinal: number;
}

/** A session's place in the lineage graph: where it came from and where it was handed off to. */
export interface SessionFact {
  sessionId: string;
  startedAt: string;
  model: string | null;
  parentSessionId: string | null;
  relation: string | null;
  /** A fork's branch point in its parent's log. */
  parentAtSeq: number | null;
}

/** A session was handed off: the link forward to its successor. */
export interface HandOffFact {
  sessionId: string;
  seq: number;
  toSessionId: string;
  handedOffAt: string;
}

/** Everything the audit read models learn from a run of events, grouped by table. */
export interface AuditFacts {
  sessions: SessionFact[];
  handOffs: HandOffFact[];
  compactions: CompactionFact[];
  failures: FailureFact[];
  supersessions: SupersessionFact[];
  replacements: ReplacementFact[];
  /** The highest seq seen per session: what the read models know of each stream. */
  lastSeqs: Map<string, number>;
}

/** Facts with nothing in them; `addAuditFacts` fills them. */
export function emptyAuditFacts(): AuditFacts {
  return {
    sessions: [],
    handOffs: [],
    compactions: [],
    failures: [],
    supersessions: [],
    replacements: [],
    lastSeqs: new Map(),
  };
}

/**
 * Adds what `events` say to the audit read models' rows. Each fact depends on its own event only, so
 * facts from any split of the log into runs add up to the facts of the whole (the projector relies on it).
 */
export function addAuditFacts(facts: AuditFacts, events: Iterable<StoredEvent>): AuditFacts {
  for (const event of events) {
    const { sessionId, seq, occurredAt } = event;
    facts.lastSeqs.set(sessionId, Math.max(facts.lastSeqs.get(sessionId) ?? 0, seq));
    switch (event.type) {
      case "session.started":
        facts.sessions.push({
          sessionId,
          startedAt: occurredAt,
          model: event.data.model ?? null,
          parentSessionId: event.data.parent?.sessionId ?? null,
          relation: event.data.parent?.relation ?? null,
          parentAtSeq: event.data.parent?.atSeq ?? null,
        });
        break;
      case "session.handed-off":
        facts.handOffs.push({ sessionId, seq, toSessionId: event.data.toSessionId, handedOffAt: occurredAt });
        break;
      case "compaction.failed": {
        const d = event.data;
        facts.failures.push({
          sessionId,
          seq,
          occurredAt,
          mode: d.mode,
          reason: d.reason,
          attempt: d.attempt,
          targets: d.targets.length,
          retryAfterMs: d.retryAfterMs ?? null,
        });
        break;
      }
      case "messages.superseded": {
        const d = event.data;
        const { compactionId, producer, stats } = d;
        facts.compactions.push({
          sessionId,
          seq,
          compactionId,
          occurredAt,
          mode: d.mode,
          trigger: d.trigger,
          policy: producer.policy,
          profile: producer.profile ?? null,
          summarizerModel: producer.summarizerModel ?? null,
          promptVersion: producer.promptVersion ?? null,
          targets: d.targets.length,
          replacements: d.replacements.length,
          tokensBefore: stats.tokensBefore,
          tokensAfter: stats.tokensAfter,
          tokensReclaimed: stats.tokensBefore - stats.tokensAfter,
          auxTokensIn: stats.auxTokensIn ?? null,
          auxTokensOut: stats.auxTokensOut ?? null,
          auxTokensCacheRead: stats.auxTokensCacheRead ?? null,
          auxTokensCacheWrite: stats.auxTokensCacheWrite ?? null,
          durationMs: stats.durationMs ?? null,
        });
        d.targets.forEach((messageId, ordinal) => {
          facts.supersessions.push({ sessionId, messageId, compactionId, seq, ordinal });
        });
        d.replacements.forEach((r, ordinal) => {
          facts.replacements.push({ sessionId, messageId: r.message.id, compactionId, kind: r.kind, seq, ordinal });
        });
        break;
      }
      default:
        break;
    }
  }
  return facts;
}

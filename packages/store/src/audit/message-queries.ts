import type { Kysely } from "kysely";
import type { AuditDatabase } from "./audit-source.ts";
import { type AuditedCompaction, toAuditedCompaction } from "./compaction-queries.ts";

/** A message a compaction put into the view, and what kind of replacement it is. */
export interface ReplacementRef {
  messageId: string;
  kind: string;
}

/** One compaction seen from the messages it touched: what it took out and what it put in. */
export interface CompactionTrail {
  compaction: AuditedCompaction;
  /** The messages it superseded, in the order the compaction listed them. */
  targets: string[];
  replacements: ReplacementRef[];
}

/** What the audit trail knows about one message id in one session, both ways. */
export interface MessageTrail {
  sessionId: string;
  messageId: string;
  /** The compaction that took this message out of the view, and what replaced it; absent while live. */
  supersededBy?: CompactionTrail;
  /** The compaction that wrote this message (a summary, marker or stub), and the messages it replaced. */
  writtenBy?: CompactionTrail;
}

/**
 * Which compaction superseded `messageId` and what replaced it, and, when the message is itself a
 * replacement, which compaction wrote it and what it replaced. One trail per session the id appears in
 * (narrowed by `sessionId`); empty when no compaction ever touched it.
 */
export async function messageTrail(
  db: Kysely<AuditDatabase>,
  messageId: string,
  sessionId?: string,
): Promise<MessageTrail[]> {
  const [superseded, written] = await Promise.all(
    (["audit_supersessions", "audit_replacements"] as const).map((table) =>
      db
        .selectFrom(table)
        .select(["session_id", "compaction_id"])
        .where("message_id", "=", messageId)
        .$if(sessionId !== undefined, (qb) => qb.where("session_id", "=", sessionId ?? ""))
        .execute(),
    ),
  );
  const trails = new Map<string, MessageTrail>();
  const trailOf = (session: string): MessageTrail => {
    const trail = trails.get(session) ?? { sessionId: session, messageId };
    trails.set(session, trail);
    return trail;
  };
  for (const row of superseded ?? []) {
    const trail = await compactionTrail(db, row.session_id, row.compaction_id);
    if (trail !== undefined) trailOf(row.session_id).supersededBy = trail;
  }
  for (const row of written ?? []) {
    const trail = await compactionTrail(db, row.session_id, row.compaction_id);
    if (trail !== undefined) trailOf(row.session_id).writtenBy = trail;
  }
  return [...trails.values()].sort((a, b) => a.sessionId.localeCompare(b.sessionId));
}

/** One compaction with its targets and replacements; undefined when the read model has no such compaction. */
export async function compactionTrail(
  db: Kysely<AuditDatabase>,
  sessionId: string,
  compactionId: string,
): Promise<CompactionTrail | undefined> {
  const row = await db
    .selectFrom("audit_compactions")
    .selectAll()
    .where("session_id", "=", sessionId)
    .where("compaction_id", "=", compactionId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const [targets, replacements] = await Promise.all([
    db
      .selectFrom("audit_supersessions")
      .select("message_id")
      .where("session_id", "=", sessionId)
      .where("compaction_id", "=", compactionId)
      .orderBy("ordinal")
      .execute(),
    db
      .selectFrom("audit_replacements")
      .select(["message_id", "kind"])
      .where("session_id", "=", sessionId)
      .where("compaction_id", "=", compactionId)
      .orderBy("ordinal")
      .execute(),
  ]);
  return {
    compaction: toAuditedCompaction(row),
    targets: targets.map((t) => t.message_id),
    replacements: replacements.map((r) => ({ messageId: r.message_id, kind: r.kind })),
  };
}

/** Every session's compaction with this id (ids are unique within a session, not across sessions). */
export async function compactionTrails(
  db: Kysely<AuditDatabase>,
  compactionId: string,
  sessionId?: string,
): Promise<CompactionTrail[]> {
  const rows = await db
    .selectFrom("audit_compactions")
    .select("session_id")
    .where("compaction_id", "=", compactionId)
    .$if(sessionId !== undefined, (qb) => qb.where("session_id", "=", sessionId ?? ""))
    .orderBy("session_id")
    .execute();
  const trails: CompactionTrail[] = [];
  for (const row of rows) {
    const trail = await compactionTrail(db, row.session_id, compactionId);
    if (trail !== undefined) trails.push(trail);
  }
  return trails;
}

import { type DomainEvent, ID_LIMITS, IdSchema } from "@palimpsest/core";

/**
 * The name a session's start gives it: its source's external id (a Claude Code session id, a subagent's
 * agent id, an SDK's session id), when that is a well-formed id no longer than a session id may be
 * (ID_LIMITS.session: a name is looked up like one, by an index); null otherwise. A hand-off successor
 * copies its predecessor's start, source included: it takes no name, so a name keeps naming the session
 * the source created (the successor is reached through its lineage). A fork takes none either.
 */
export function nameOfStart(data: unknown): string | null {
  if (typeof data !== "object" || data === null) return null;
  const { source, parent } = data as { source?: { externalId?: unknown }; parent?: { relation?: unknown } };
  if (parent?.relation === "handoff" || parent?.relation === "fork") return null;
  const name = source?.externalId;
  if (typeof name !== "string" || name.length > ID_LIMITS.session) return null;
  return IdSchema.safeParse(name).success ? name : null;
}

/** The name a batch gives the session it creates: that of its first event when that is the session's start. */
export function nameOfBatch(events: readonly DomainEvent[]): string | null {
  const [first] = events;
  return first?.type === "session.started" ? nameOfStart(first.data) : null;
}

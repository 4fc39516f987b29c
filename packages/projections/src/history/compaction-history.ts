import type { MessagesSuperseded, StoredEvent } from "@palimpsest/core";

/** One compaction as the audit trail shows it. */
export interface CompactionRecord {
  compactionId: string;
  seq: number;
  occurredAt: string;
  mode: MessagesSuperseded["mode"];
  trigger: MessagesSuperseded["trigger"];
  targets: string[];
  replacements: {
    id: string;
    kind: MessagesSuperseded["replacements"][number]["kind"];
    role: string;
    tokens: number;
  }[];
  producer: MessagesSuperseded["producer"];
  stats: MessagesSuperseded["stats"];
  basis: MessagesSuperseded["basis"];
}

/** Every compaction of a session, oldest first, with targets, replacements, producer and stats. */
export function compactionHistory(events: Iterable<StoredEvent>): CompactionRecord[] {
  const records: CompactionRecord[] = [];
  for (const event of events) {
    if (event.type !== "messages.superseded") continue;
    const d = event.data;
    records.push({
      compactionId: d.compactionId,
      seq: event.seq,
      occurredAt: event.occurredAt,
      mode: d.mode,
      trigger: d.trigger,
      targets: d.targets,
      replacements: d.replacements.map((r) => ({
        id: r.message.id,
        kind: r.kind,
        role: r.message.role,
        tokens: r.tokens,
      })),
      producer: d.producer,
      stats: d.stats,
      basis: d.basis,
    });
  }
  return records;
}

import { type Message, NotFoundError, type StoredEvent } from "@palimpsest/core";

/** A message behind a compaction, with where it came from in the log. */
export interface ExpandedMessage {
  message: Message;
  tokens: number;
  /** Seq of the event that introduced it. */
  seq: number;
  /** Set when the original was itself placed by an earlier compaction (a summary of a summary). */
  placedBy?: string;
}

/**
 * The exact messages a compaction superseded, in their original order. With `deep`, targets that
 * were themselves replacements are expanded again, down to the messages as first appended.
 */
export function expandCompaction(
  events: readonly StoredEvent[],
  compactionId: string,
  deep = false,
): ExpandedMessage[] {
  const origin = new Map<string, ExpandedMessage>();
  const standsFor = new Map<string, string[]>();
  let targets: string[] | undefined;
  for (const event of events) {
    if (event.type === "message.appended") {
      const { message, tokens } = event.data;
      origin.set(message.id, { message, tokens, seq: event.seq });
    } else if (event.type === "messages.superseded") {
      const d = event.data;
      const claimed = new Set(d.replacements.flatMap((r) => (r.at === undefined ? [] : [r.at])));
      const unclaimed = d.targets.filter((id) => !claimed.has(id));
      for (const r of d.replacements) {
        origin.set(r.message.id, { message: r.message, tokens: r.tokens, seq: event.seq, placedBy: d.compactionId });
        standsFor.set(r.message.id, r.at === undefined ? unclaimed : [r.at]);
      }
      if (d.compactionId === compactionId) targets = d.targets;
    }
  }
  if (targets === undefined) throw new NotFoundError("compaction", compactionId);
  const expandIds = (ids: readonly string[]): ExpandedMessage[] =>
    ids.flatMap((id) => {
      const found = origin.get(id);
      if (found === undefined) return [];
      const inner = standsFor.get(id);
      return deep && inner !== undefined ? expandIds(inner) : [found];
    });
  return expandIds(targets);
}

import { applySupersede, type LiveEntry, type Message, NotFoundError, type StoredEvent } from "@palimpsest/core";

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
  // The view as it stood, so targets come back in view order whatever order the event listed them in.
  let live: LiveEntry[] = [];
  let targets: string[] | undefined;
  for (const event of events) {
    if (event.type === "message.appended") {
      const { message, tokens } = event.data;
      origin.set(message.id, { message, tokens, seq: event.seq });
      live.push({ message, tokens, seq: event.seq });
    } else if (event.type === "messages.superseded") {
      const d = event.data;
      const targetIds = new Set(d.targets);
      const inView = live.flatMap((e) => (targetIds.has(e.message.id) ? [e.message.id] : []));
      const seen = new Set(inView);
      const ordered = [...inView, ...d.targets.filter((id) => !seen.has(id))];
      live = applySupersede(live, d, event.seq);
      const claimed = new Set(d.replacements.flatMap((r) => (r.at === undefined ? [] : [r.at])));
      const unclaimed = ordered.filter((id) => !claimed.has(id));
      for (const r of d.replacements) {
        origin.set(r.message.id, { message: r.message, tokens: r.tokens, seq: event.seq, placedBy: d.compactionId });
        standsFor.set(r.message.id, r.at === undefined ? unclaimed : [r.at]);
      }
      if (d.compactionId === compactionId) targets = ordered;
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

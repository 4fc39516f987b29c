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
      // Only the first replacement without `at` stands for the unclaimed targets (it is placed where they were).
      let unclaimed: string[] = ordered.filter((id) => !claimed.has(id));
      for (const r of d.replacements) {
        origin.set(r.message.id, { message: r.message, tokens: r.tokens, seq: event.seq, placedBy: d.compactionId });
        if (r.at !== undefined) standsFor.set(r.message.id, [r.at]);
        else {
          standsFor.set(r.message.id, unclaimed);
          unclaimed = [];
        }
      }
      if (d.compactionId === compactionId) targets = ordered;
    }
  }
  if (targets === undefined) throw new NotFoundError("compaction", compactionId);
  return expandIds(targets, origin, deep ? standsFor : new Map());
}

/**
 * The messages behind `ids`, in order, each at most once. Iterative (an explicit stack), so a chain of
 * thousands of compactions, each superseding the last one's replacement, does not overflow the call stack.
 */
function expandIds(
  ids: readonly string[],
  origin: ReadonlyMap<string, ExpandedMessage>,
  standsFor: ReadonlyMap<string, readonly string[]>,
): ExpandedMessage[] {
  const out: ExpandedMessage[] = [];
  const visited = new Set<string>();
  const stack = [...ids].reverse();
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (visited.has(id)) continue;
    visited.add(id);
    const inner = standsFor.get(id);
    if (inner !== undefined) {
      for (let i = inner.length - 1; i >= 0; i -= 1) stack.push(inner[i] as string);
      continue;
    }
    const found = origin.get(id);
    if (found !== undefined) out.push(found);
  }
  return out;
}

import { canonicalJson, type ImportItem, type Message, type SessionState } from "@palimpsest/core";

/** A message of the log whose source changed: the live message it replaces, and the source's version. */
export interface Revision {
  /** The live message standing for the source message now (the first version, or the latest revision). */
  targetId: string;
  /** The source's message, with the source's id. */
  message: Message;
}

/** The id of a revision of `sourceId` written when the log is at `seq`: `<id>~r<seq>`, new by construction. */
export function revisionId(sourceId: string, seq: number): string {
  return `${sourceId}~r${seq}`;
}

/**
 * The messages of `items` the log holds in another version: for each source assistant message the log
 * has, the live message standing for it (its own id, or its newest `<id>~r<n>` revision) when that
 * differs from the source. Only assistant messages are compared: the others come from one source line
 * each and cannot change. Messages no longer live (a compaction absorbed them) are not revised.
 */
export function revisedMessages(state: SessionState, items: readonly ImportItem[]): Revision[] {
  const assistants = items.flatMap((item) =>
    item.kind === "message" && item.message.role === "assistant" ? [item.message] : [],
  );
  if (assistants.length === 0) return [];
  // The live message standing for each source id asked about (the last one in the view, should two be),
  // looked for from the end of the view, where the messages a source still changes are.
  const wanted = new Set(assistants.map((m) => m.id));
  const standing = new Map<string, Message>();
  for (let i = state.live.length - 1; i >= 0 && standing.size < wanted.size; i--) {
    const { message } = state.live[i] as SessionState["live"][number];
    const sourceId = message.id.replace(REVISION_SUFFIX, "");
    if (message.role === "assistant" && wanted.has(sourceId) && !standing.has(sourceId))
      standing.set(sourceId, message);
  }
  const revisions: Revision[] = [];
  for (const message of assistants) {
    const live = standing.get(message.id);
    if (live === undefined || canonicalJson({ ...live, id: message.id }) === canonicalJson(message)) continue;
    // A source version the live one already extends is stale: a fold that read the key before another
    // process's fold wrote more (a Claude Code message only grows, block by block) must not take it back.
    if (grownFrom(message, { ...live, id: message.id })) continue;
    revisions.push({ targetId: live.id, message });
  }
  return revisions;
}

/**
 * Whether `newer` is `older` with blocks appended: its content parts, tool calls and reasoning blocks
 * begin with `older`'s, and everything else is the same.
 */
function grownFrom(older: Message, newer: Message): boolean {
  const prefix = (a: unknown, b: unknown): boolean => {
    if (a === undefined) return true;
    if (!Array.isArray(a) || !Array.isArray(b)) return canonicalJson(a) === canonicalJson(b);
    return a.length <= b.length && a.every((x, i) => canonicalJson(x) === canonicalJson(b[i]));
  };
  const { content, toolCalls, reasoning, ...rest } = older;
  const { content: newContent, toolCalls: newCalls, reasoning: newReasoning, ...newRest } = newer;
  return (
    canonicalJson(rest) === canonicalJson(newRest) &&
    prefix(content, newContent) &&
    prefix(toolCalls, newCalls) &&
    prefix(reasoning, newReasoning)
  );
}

/** The suffix revisionId adds. */
const REVISION_SUFFIX = /~r\d+$/;

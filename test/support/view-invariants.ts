import { checkToolPairs, type StoredEvent } from "@palimpsest/core";
import { checkUniqueIds } from "@palimpsest/core/testing";
import {
  checkAnthropicRequest,
  checkOpenAIRequest,
  toAnthropicRequest,
  toOpenAIMessages,
} from "@palimpsest/projections";
import type { Session } from "@palimpsest/runtime";

/**
 * Every view invariant (docs/architecture.md) that can be read off a session and its log: exactly-once (unique ids,
 * nothing superseded is live, no summary beside its targets), tool pairs, provider-valid roles, and
 * the running token total. Returns the problems found; empty means the view is sound.
 */
export function viewProblems(session: Session, log: readonly StoredEvent[]): string[] {
  const view = session.view();
  const problems: string[] = [];
  problems.push(...checkUniqueIds(view.messages).map((v) => `${v.rule} ${v.messageId}`));
  problems.push(...checkToolPairs(view.messages).map((v) => `${v.rule} ${v.messageId} ${v.detail}`));
  problems.push(...checkOpenAIRequest(toOpenAIMessages(view.messages)).map((p) => `openai ${p}`));
  problems.push(...checkAnthropicRequest(toAnthropicRequest(view.messages)).map((p) => `anthropic ${p}`));
  const superseded = new Set(log.flatMap((e) => (e.type === "messages.superseded" ? e.data.targets : [])));
  for (const m of view.messages) if (superseded.has(m.id)) problems.push(`superseded message ${m.id} is live`);
  const sum = session.state.live.reduce((n, e) => n + e.tokens, 0);
  if (sum !== view.tokens) problems.push(`token total ${view.tokens} != sum of live tokens ${sum}`);
  return problems;
}

/**
 * Invariant 5: at most one rolling-summary marker is live, and it is the one the newest micro or defrag
 * compaction in the log placed. Returns the problems found.
 */
export function rollingMarkerProblems(session: Session, log: readonly StoredEvent[]): string[] {
  const markers = session.state.live.filter((e) => e.placedBy?.kind === "rolling-summary");
  if (markers.length > 1) return [`${markers.length} rolling summary markers live`];
  const newest = log.findLast(
    (e) => e.type === "messages.superseded" && e.data.replacements.some((r) => r.kind === "rolling-summary"),
  );
  const marker = markers[0];
  if (marker === undefined || newest?.type !== "messages.superseded") return [];
  return marker.placedBy?.compactionId === newest.data.compactionId
    ? []
    : [`live marker ${marker.message.id} is not the newest (${newest.data.compactionId})`];
}

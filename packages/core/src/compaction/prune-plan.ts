import type { Replacement } from "../events/event-data.ts";
import type { Message, ToolCall } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import { derivedId } from "./derived-id.ts";
import type { CountTokens } from "./policy-types.ts";
import type { ProviderProfile } from "./provider-profile.ts";
import { middleEntries, type SpanSelection } from "./span-selection.ts";
import { describeToolRun, duplicateReference, duplicateStubText, stubMessage } from "./tool-stub.ts";

/** The stubs a prune would write, and the tokens they would remove and add. */
export interface PruneOutcome {
  targets: string[];
  replacements: Replacement[];
  removedTokens: number;
  addedTokens: number;
}

/**
 * Stubs for the middle's old tool outputs: one over `pruneMinOutputTokens` becomes a one-line description
 * of what ran, and one with an identical newer copy that stays whole (unpruned in this pass and not yet
 * stubbed) a pointer to it; a copy an earlier pointer names is kept whole. Outputs of protected tools,
 * earlier stubs and summaries are left alone, and so is any output a stub would not shrink.
 */
export function planPrune(
  view: readonly LiveEntry[],
  span: SpanSelection,
  profile: ProviderProfile,
  viewVersion: number,
  countTokens: CountTokens,
): PruneOutcome {
  const calls = new Map<string, ToolCall>();
  for (const { message } of view) for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  const protectedTools = new Set(profile.protectedTools);
  const referenced = new Set(view.flatMap((e) => (e.placedBy?.kind === "stub" ? [duplicateReference(e.message)] : [])));
  const callOf = (m: Message) => (m.toolCallId === undefined ? undefined : calls.get(m.toolCallId));
  const prunable = (e: LiveEntry) =>
    e.message.role === "tool" &&
    e.placedBy === undefined &&
    !protectedTools.has(callOf(e.message)?.name ?? e.message.name ?? "");

  const newest = new Map<string, LiveEntry>();
  for (const entry of view) if (prunable(entry)) newest.set(contentKey(entry.message), entry);
  const stubOf = (entry: LiveEntry, text: string): Replacement | undefined => {
    const message = stubMessage(derivedId(entry.message.id, `stub${viewVersion}`), entry.message, text);
    const tokens = countTokens(message);
    return tokens < entry.tokens ? { kind: "stub", message, tokens, at: entry.message.id } : undefined;
  };
  const runOf = (entry: LiveEntry) => describeToolRun(entry.message, callOf(entry.message), entry.tokens);

  // A copy an earlier pointer names stays whole; long outputs are stubbed first, so a pointer is only
  // written to a copy this pass leaves whole.
  const middle = middleEntries(view, span).filter(
    (e) => prunable(e) && !referenced.has(e.message.toolCallId ?? e.message.id),
  );
  const stubs = new Map<LiveEntry, Replacement>();
  for (const entry of middle) {
    if (entry.tokens <= profile.pruneMinOutputTokens) continue;
    const stub = stubOf(entry, `[output pruned] ${runOf(entry)}; \`palimpsest expand\` returns the full text`);
    if (stub !== undefined) stubs.set(entry, stub);
  }
  for (const entry of middle) {
    const copy = newest.get(contentKey(entry.message));
    if (copy === undefined || copy === entry || stubs.has(copy)) continue;
    const stub = stubOf(entry, duplicateStubText(runOf(entry), copy.message.toolCallId ?? copy.message.id));
    if (stub !== undefined) stubs.set(entry, stub);
  }

  const outcome: PruneOutcome = { targets: [], replacements: [], removedTokens: 0, addedTokens: 0 };
  for (const entry of middle) {
    const stub = stubs.get(entry);
    if (stub === undefined) continue;
    outcome.targets.push(entry.message.id);
    outcome.replacements.push(stub);
    outcome.removedTokens += entry.tokens;
    outcome.addedTokens += stub.tokens;
  }
  return outcome;
}

/** What makes two tool outputs identical: their content parts and error flag. */
function contentKey(message: Message): string {
  return JSON.stringify([message.isError === true, message.content]);
}

import type { Replacement } from "../events/event-data.ts";
import type { Message, ToolCall } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import { derivedId } from "./derived-id.ts";
import type { CountTokens } from "./policy-types.ts";
import type { ProviderProfile } from "./provider-profile.ts";
import { middleEntries, type SpanSelection } from "./span-selection.ts";
import { describeToolRun, stubMessage } from "./tool-stub.ts";

/** The stubs a prune would write, and the tokens they would remove and add. */
export interface PruneOutcome {
  targets: string[];
  replacements: Replacement[];
  removedTokens: number;
  addedTokens: number;
}

/**
 * Stubs for the middle's old tool outputs: an output with an identical newer copy becomes a pointer to
 * it (the newest is kept), one over `pruneMinOutputTokens` a one-line description of what ran. Outputs
 * of protected tools, earlier stubs and summaries are left alone, and so is any output a stub would not shrink.
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
  const callOf = (m: Message) => (m.toolCallId === undefined ? undefined : calls.get(m.toolCallId));
  const prunable = (e: LiveEntry) =>
    e.message.role === "tool" &&
    e.placedBy === undefined &&
    !protectedTools.has(callOf(e.message)?.name ?? e.message.name ?? "");

  const newest = new Map<string, LiveEntry>();
  for (const entry of view) if (prunable(entry)) newest.set(contentKey(entry.message), entry);

  const outcome: PruneOutcome = { targets: [], replacements: [], removedTokens: 0, addedTokens: 0 };
  for (const entry of middleEntries(view, span)) {
    if (!prunable(entry)) continue;
    const { message } = entry;
    const call = callOf(message);
    const copy = newest.get(contentKey(message));
    const run = describeToolRun(message, call, entry.tokens);
    let text: string;
    if (copy !== undefined && copy !== entry) {
      text = `[duplicate output pruned] ${run}; identical to the later result of call ${copy.message.toolCallId ?? copy.message.id}`;
    } else if (entry.tokens > profile.pruneMinOutputTokens) {
      text = `[output pruned] ${run}; \`palimpsest expand\` returns the full text`;
    } else {
      continue;
    }
    const stub = stubMessage(derivedId(message.id, `stub${viewVersion}`), message, text);
    const tokens = countTokens(stub);
    if (tokens >= entry.tokens) continue;
    outcome.targets.push(message.id);
    outcome.replacements.push({ kind: "stub", message: stub, tokens, at: message.id });
    outcome.removedTokens += entry.tokens;
    outcome.addedTokens += tokens;
  }
  return outcome;
}

/** What makes two tool outputs identical: their content parts and error flag. */
function contentKey(message: Message): string {
  return JSON.stringify([message.isError === true, message.content]);
}

import type { Replacement } from "../events/event-data.ts";
import { messageText } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import type { CountTokens, NoPlan, PolicyInput, SummaryPlan } from "./policy-types.ts";
import { isSummaryEntry, middleEntries, type SpanOptions, selectSpan } from "./span-selection.ts";
import { formatSummaryMessage, stripSummaryNote } from "./summary-note.ts";
import { chooseSummaryRole } from "./summary-role.ts";
import { tailBudget } from "./threshold.ts";

/**
 * The summary of the middle between the protected head and tail (no threshold or back-off check: see
 * `summaryPolicy`). An earlier summary in the span is passed, without its note, as `previousSummary`
 * so the new one updates it rather than nesting it; it is superseded but not part of `input`. With
 * `span.keepSummaries` the earlier summaries stay as they are and the new one follows them.
 */
export function planSummary(input: PolicyInput, why: string, spanOptions: SpanOptions = {}): SummaryPlan | NoPlan {
  const { view, profile } = input;
  const span = selectSpan(view, tailBudget(input.contextWindow, profile.tail), input.compactions, spanOptions);
  const middle = middleEntries(view, span);
  const earlier = middle.filter(isSummaryEntry);
  const fresh = middle.filter((e) => !isSummaryEntry(e));
  if (fresh.length === 0) {
    return { kind: "none", reason: `${why}, but nothing lies between the protected head and tail` };
  }
  const spanTokens = sumTokens(middle);
  const budget = profile.summary;
  const plan: SummaryPlan = {
    kind: "summary",
    targets: middle.map((e) => e.message.id),
    input: fresh,
    role: chooseSummaryRole(view[view.indexOf(middle[0] as LiveEntry) - 1]?.message),
    maxSummaryTokens: Math.min(budget.maxTokens, Math.max(budget.minTokens, Math.floor(budget.ratio * spanTokens))),
    tokensBefore: input.liveTokens,
    reason: `${why}: summarizing ${middle.length} messages (${spanTokens} tokens) between a head of ${span.headEnd} and a tail of ${view.length - span.tailStart} (${span.pinned.size} pinned)`,
  };
  if (earlier.length > 0) {
    plan.previousSummary = earlier.map((e) => stripSummaryNote(messageText(e.message))).join("\n\n");
    plan.previousSummaryAt = middle.findIndex(isSummaryEntry);
    plan.previousSummaries = earlier.length;
  }
  return plan;
}

/**
 * The replacement that records a written summary: the plan's role, the note around the text (with the
 * recall line when the agent has a tool named `recallTool`), counted tokens.
 */
export function summaryReplacementFor(
  plan: SummaryPlan,
  id: string,
  text: string,
  countTokens: CountTokens,
  recallTool?: string,
): Replacement {
  const content = [{ type: "text" as const, text: formatSummaryMessage(text, recallTool) }];
  const message = { id, role: plan.role, content };
  return { kind: "summary", message, tokens: countTokens(message) };
}

function sumTokens(entries: readonly LiveEntry[]): number {
  return entries.reduce((sum, e) => sum + e.tokens, 0);
}

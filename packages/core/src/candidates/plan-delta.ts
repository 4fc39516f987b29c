import type { SummaryPlan } from "../compaction/policy-types.ts";
import { isSummaryEntry } from "../compaction/span-selection.ts";
import { stripSummaryNote } from "../compaction/summary-note.ts";
import { messageText } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import type { PrecompactionCandidate } from "./candidate.ts";

/** What a hit still has to summarize: the messages after the candidate, continuing its summary. */
export interface DeltaPlan {
  /** The plan's targets after the ones the candidate covers (earlier summaries included). */
  targets: string[];
  /** The delta's messages the summarizer reads; empty when the candidate's summary is the whole answer. */
  input: LiveEntry[];
  /** The candidate's summary, followed by any earlier summary inside the delta: the text the delta updates. */
  previousSummary: string;
}

/**
 * Splits a summary plan at a validated candidate (covering its first `covered` targets): the delta is
 * the rest of the plan's targets; the summarizer reads only its messages, updating the candidate's summary.
 */
export function planDelta(
  candidate: PrecompactionCandidate,
  plan: SummaryPlan,
  view: readonly LiveEntry[],
  covered: number,
): DeltaPlan {
  const byId = new Map(view.map((e) => [e.message.id, e]));
  const targets = plan.targets.slice(covered);
  const entries = targets.flatMap((id) => byId.get(id) ?? []);
  const earlier = entries.filter(isSummaryEntry).map((e) => stripSummaryNote(messageText(e.message)));
  return {
    targets,
    input: entries.filter((e) => !isSummaryEntry(e)),
    previousSummary: [candidate.summary, ...earlier].join("\n\n"),
  };
}

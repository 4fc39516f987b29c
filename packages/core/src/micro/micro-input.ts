import type { CountTokens } from "../compaction/policy-types.ts";
import { formatSummaryMessage } from "../compaction/summary-note.ts";
import type { Replacement } from "../events/event-data.ts";
import { BATCH_MODES, type SessionState } from "../session/session-state.ts";
import type { MicroInput } from "./micro-plan-types.ts";
import type { MicroSettings } from "./micro-settings.ts";

/** Batch compactions committed in a session (the modes that shrink the head and reset the micro state). */
export function batchCompactions(state: Readonly<SessionState>): number {
  let count = 0;
  for (const mode of BATCH_MODES) count += state.compactionsByMode[mode] ?? 0;
  return count;
}

/** The planner's input read off a session's state: everything it needs is derived from the log. */
export function microInputFor(state: Readonly<SessionState>, settings: MicroSettings, tailTokens: number): MicroInput {
  const input: MicroInput = {
    view: state.live,
    batchCompactions: batchCompactions(state),
    tailTokens,
    failures: state.micro,
    settings,
    turnsCompleted: state.turns,
    liveSummaries: state.liveSummaries,
  };
  const own = state.started?.settings?.microCompact;
  if (own !== undefined) input.sessionEnabled = own;
  return input;
}

/**
 * The new rolling-summary marker: an assistant message (it sits between user turns, so roles alternate and
 * no repair pass merges it into a user turn) with the same reference-only note as batch summaries, so a
 * later batch summary strips the note and updates the text instead of nesting it. `at`: where it goes;
 * `recallTool`: the name of the agent's recall tool, which the marker's last line names.
 */
export function rollingSummaryReplacement(
  id: string,
  text: string,
  countTokens: CountTokens,
  place: { at?: string | undefined; recallTool?: string | undefined } = {},
): Replacement {
  const { at, recallTool } = place;
  const message = {
    id,
    role: "assistant" as const,
    content: [{ type: "text" as const, text: formatSummaryMessage(text, recallTool) }],
  };
  const replacement: Replacement = { kind: "rolling-summary", message, tokens: countTokens(message) };
  if (at !== undefined) replacement.at = at;
  return replacement;
}

import { isSummaryEntry, type Message, type SessionState } from "@palimpsest/core";

/** The prompt the model sees next: live messages in order, with their running token total. */
export interface ActiveView {
  sessionId: string;
  viewVersion: number;
  lastSeq: number;
  tokens: number;
  messages: Message[];
  /**
   * The id of the view's last summary, if it holds one: the prompt up to it changes only at a compaction
   * that replaces it, so a prompt-cache breakpoint there (toAnthropicRequest's `cache.summaryId`) outlives
   * compactions that keep it.
   */
  lastSummaryId?: string;
}

/** Projects a session state onto its active prompt view. Costs one pass; the token total is already known. */
export function activeView(state: SessionState): ActiveView {
  const view: ActiveView = {
    sessionId: state.sessionId,
    viewVersion: state.viewVersion,
    lastSeq: state.lastSeq,
    tokens: state.liveTokens,
    messages: state.live.map((e) => e.message),
  };
  const lastSummary = state.live.findLast(isSummaryEntry);
  if (lastSummary !== undefined) view.lastSummaryId = lastSummary.message.id;
  return view;
}

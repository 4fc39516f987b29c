import {
  type LastCompaction,
  liveMarker,
  type SessionStarted,
  type SessionState,
  summaryIndices,
  type Usage,
} from "@palimpsest/core";

/** What a restarted or handed-off agent needs to carry on, without replaying anything itself. */
export interface ResumeState {
  sessionId: string;
  lastSeq: number;
  viewVersion: number;
  liveMessages: number;
  liveTokens: number;
  turns: number;
  lastUsage: Usage | undefined;
  lastCompaction: LastCompaction | undefined;
  /**
   * Compactions committed so far: every supersede but a retraction (a `retract` rewrite withdraws messages
   * on purpose: a popped item, an adapter's bookkeeping rewrite; it moves the view version all the same).
   */
  compactions: number;
  failedCompactions: number;
  lineage: { parent: SessionStarted["parent"]; handedOffTo: string | undefined };
  /**
   * Id of the first live message after the live rolling-summary marker: where micro-compaction resumes.
   * Undefined while no marker is live (micro-compaction has not run, or a batch compaction absorbed it)
   * or when nothing follows the marker yet.
   */
  rollingSummaryCursor: string | undefined;
  /** How the session was started: model, tokenizer, context window, profile, source. */
  settings: SessionStarted | undefined;
  /** When the session's content was erased (its messages are tombstones; it takes no writes). */
  erasedAt: string | undefined;
}

/** Projects a session state onto its resume state. */
export function resumeState(state: SessionState): ResumeState {
  const started = state.started;
  return {
    sessionId: state.sessionId,
    lastSeq: state.lastSeq,
    viewVersion: state.viewVersion,
    liveMessages: state.live.length,
    liveTokens: state.liveTokens,
    turns: state.turns,
    lastUsage: state.lastTurn?.usage,
    lastCompaction: state.lastCompaction,
    compactions: state.viewVersion - (state.compactionsByMode.retract ?? 0),
    failedCompactions: state.failures,
    lineage: { parent: started?.parent, handedOffTo: state.handedOffTo },
    rollingSummaryCursor: rollingSummaryCursor(state),
    settings: started,
    erasedAt: state.erasedAt,
  };
}

function rollingSummaryCursor(state: SessionState): string | undefined {
  if (state.liveSummaries === 0) return undefined;
  const marker = liveMarker(state.live, summaryIndices(state.live, state.liveSummaries));
  return marker === undefined ? undefined : state.live[marker.index + 1]?.message.id;
}

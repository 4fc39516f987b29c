import type { LastCompaction, SessionStarted, SessionState, Usage } from "@palimpsest/core";

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
  compactions: number;
  failedCompactions: number;
  lineage: { parent: SessionStarted["parent"]; handedOffTo: string | undefined };
  /** First message not yet absorbed by micro-compaction; undefined until micro-compaction runs. */
  rollingSummaryCursor: string | undefined;
  /** How the session was started: model, tokenizer, context window, profile, source. */
  settings: SessionStarted | undefined;
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
    compactions: state.compactions,
    failedCompactions: state.failures,
    lineage: { parent: started?.parent, handedOffTo: state.handedOffTo },
    rollingSummaryCursor: undefined,
    settings: started,
  };
}

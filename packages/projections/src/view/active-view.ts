import type { Message, SessionState } from "@palimpsest/core";

/** The prompt the model sees next: live messages in order, with their running token total. */
export interface ActiveView {
  sessionId: string;
  viewVersion: number;
  lastSeq: number;
  tokens: number;
  messages: Message[];
}

/** Projects a session state onto its active prompt view. Costs one pass; the token total is already known. */
export function activeView(state: SessionState): ActiveView {
  return {
    sessionId: state.sessionId,
    viewVersion: state.viewVersion,
    lastSeq: state.lastSeq,
    tokens: state.liveTokens,
    messages: state.live.map((e) => e.message),
  };
}

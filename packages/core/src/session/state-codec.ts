import { createHash } from "node:crypto";
import type { SessionState } from "./session-state.ts";

/** Version of the snapshot format; a snapshot in any other format is ignored and the log replayed. */
export const STATE_FORMAT = 10;

/** A state in plain JSON form, with its checksum, ready to be kept as a snapshot. */
export interface EncodedState {
  format: number;
  seq: number;
  state: string;
  checksum: string;
}

/** SHA-256 of a text, hex. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Serializes a state for a snapshot (the pending calls' Map becomes an array). */
export function encodeState(state: SessionState): EncodedState {
  const text = JSON.stringify({ ...state, pendingCalls: [...state.pendingCalls] });
  return { format: STATE_FORMAT, seq: state.lastSeq, state: text, checksum: sha256(text) };
}

/**
 * Reads a snapshot back, or returns undefined when it cannot be trusted: another format, a checksum
 * mismatch (not computed when the store has `authenticated` the state), unparsable JSON, or a state for
 * another session or seq. The caller then replays the log.
 */
export function decodeState(
  encoded: EncodedState & { readonly authenticated?: boolean },
  sessionId: string,
): SessionState | undefined {
  if (encoded.format !== STATE_FORMAT) return undefined;
  if (encoded.authenticated !== true && sha256(encoded.state) !== encoded.checksum) return undefined;
  try {
    const raw = JSON.parse(encoded.state) as Record<string, unknown>;
    if (raw.sessionId !== sessionId || raw.lastSeq !== encoded.seq || !Array.isArray(raw.live)) return undefined;
    return {
      ...(raw as unknown as SessionState),
      started: (raw.started as SessionState["started"]) ?? undefined,
      lastCompaction: (raw.lastCompaction as SessionState["lastCompaction"]) ?? undefined,
      lastTurn: (raw.lastTurn as SessionState["lastTurn"]) ?? undefined,
      lastTurnAt: (raw.lastTurnAt as number | undefined) ?? undefined,
      handedOffTo: (raw.handedOffTo as string | undefined) ?? undefined,
      erasedAt: (raw.erasedAt as string | undefined) ?? undefined,
      pendingCalls: new Map(raw.pendingCalls as [string, string][]),
    };
  } catch {
    return undefined;
  }
}

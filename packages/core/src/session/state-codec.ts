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
  const steps = encodeStateSteps(state);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * Serializes a state as encodeState does, one live entry per step: each `next()` encodes one more, and the
 * generator returns the encoded state. A caller that pauses between steps spreads a large state's encoding
 * (its JSON and checksum) over several turns of its event loop, and gets the state as it was at the first
 * `next()`: that step encodes all but the live entries and copies their list (the entries themselves are
 * never changed, a fold replaces them). The text is the state's JSON with the live entries last; the
 * checksum is computed as the text is made.
 */
export function* encodeStateSteps(state: SessionState): Generator<undefined, EncodedState> {
  const { live: current, ...rest } = state;
  const live = [...current];
  const seq = state.lastSeq;
  const hash = createHash("sha256");
  const pieces: string[] = [];
  const add = (piece: string) => {
    hash.update(piece);
    pieces.push(piece);
  };
  // Every piece is whole JSON (lone surrogates escaped), so hashing them in turn hashes the text's UTF-8.
  add(`${JSON.stringify({ ...rest, pendingCalls: [...state.pendingCalls] }).slice(0, -1)},"live":[`);
  for (const [i, entry] of live.entries()) {
    yield;
    add(i === 0 ? JSON.stringify(entry) : `,${JSON.stringify(entry)}`);
  }
  add("]}");
  return { format: STATE_FORMAT, seq, state: pieces.join(""), checksum: hash.digest("hex") };
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

/**
 * A snapshot's encoding (encodeState, and encodeStateSteps that the runtime runs in slices) reads back as the
 * state it encoded, with a checksum over exactly the text stored: on the states of the real transcripts and
 * on generated ones whose text holds any UTF-16 (lone surrogates included, each piece hashed on its own).
 */
import {
  decodeState,
  encodeState,
  encodeStateSteps,
  initialState,
  type Message,
  type SessionState,
  sha256,
} from "@palimpsest/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../support/real-transcripts.ts";

/** A state whose view is `messages` (tokens made up: the codec does not read them), with pending calls and a turn. */
function stateOf(sessionId: string, messages: readonly Message[]): SessionState {
  const state = initialState(sessionId);
  for (const [i, message] of messages.entries()) {
    state.live.push({ message, tokens: i + 1, seq: i + 2 });
    for (const call of message.toolCalls ?? []) state.pendingCalls.set(call.id, message.id);
  }
  state.lastSeq = messages.length + 1;
  state.liveTokens = state.live.reduce((n, e) => n + e.tokens, 0);
  state.turns = 3;
  state.lastTurnAt = 1_700_000_000_000;
  return state;
}

/** Runs encodeStateSteps to its end, counting its steps. */
function runSteps(state: SessionState): { encoded: ReturnType<typeof encodeState>; steps: number } {
  const steps = encodeStateSteps(state);
  for (let n = 0; ; n++) {
    const step = steps.next();
    if (step.done === true) return { encoded: step.value, steps: n };
  }
}

/** What the state and its encoding must satisfy: one text, its checksum, and the same state read back. */
function expectRoundTrip(state: SessionState): void {
  const encoded = encodeState(state);
  expect(encoded.checksum).toBe(sha256(encoded.state));
  expect(encoded.seq).toBe(state.lastSeq);
  expect(decodeState(encoded, state.sessionId)).toEqual(state);
  const { encoded: stepped, steps } = runSteps(state);
  expect(stepped).toEqual(encoded);
  expect(steps).toBe(state.live.length); // one step per live entry: a slice never holds more than one
}

describe("snapshot encoding", () => {
  it.skipIf(!HAVE_TRANSCRIPTS).each(realTranscriptFiles())("%s: every session's state reads back", (file) => {
    for (const source of realSessions(file)) {
      const messages = source.items.flatMap((i) => (i.kind === "message" ? [i.message] : []));
      expectRoundTrip(stateOf(source.externalId, messages));
    }
  });

  it("generated states read back, whatever UTF-16 their text holds", () => {
    const text = fc.string({ unit: "binary", maxLength: 40 });
    const message = fc.record({
      id: fc.uuid(),
      role: fc.constantFrom("user" as const, "assistant" as const),
      content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), text, (messages, sessionId) => {
        expectRoundTrip(stateOf(sessionId, messages));
      }),
      { numRuns: 300 },
    );
  });

  it("encodes the state as it was at the first step, whatever changes after it", () => {
    const state = stateOf("s", [
      { id: "u1", role: "user", content: [{ type: "text", text: "first" }] },
      { id: "a1", role: "assistant", content: [{ type: "text", text: "second" }] },
    ]);
    const before = encodeState(state);
    const steps = encodeStateSteps(state);
    steps.next();
    // A fold pushes onto the list and moves the seq; the encoding in progress keeps what it saw.
    state.live.push({
      message: { id: "u9", role: "user", content: [{ type: "text", text: "later" }] },
      tokens: 1,
      seq: 9,
    });
    state.lastSeq = 9;
    state.pendingCalls.set("c9", "u9");
    let step = steps.next();
    while (step.done !== true) step = steps.next();
    expect(step.value).toEqual(before);
  });
});

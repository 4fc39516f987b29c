import { foldEvents, initialState, parseStoredEvent, type RawStoredEvent } from "@palimpsest/core";
import { execute, generatedSessionArb, toStoredEvents, userMessage } from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

describe("@palimpsest/testing", () => {
  it("toStoredEvents stamps gapless seqs and positions that parse back unchanged", () => {
    const events = toStoredEvents(
      "s1",
      [
        { type: "turn.completed", data: { turnId: "t1" } },
        { type: "message.appended", data: { message: userMessage("u1", "hi"), tokens: 1 } },
      ],
      { firstSeq: 5, firstPosition: 100 },
    );
    expect(events.map((e) => [e.seq, e.position])).toEqual([
      [5, 100],
      [6, 101],
    ]);
    for (const e of events) {
      expect(parseStoredEvent(e as RawStoredEvent)).toEqual(e);
    }
  });

  it("generated sessions replay command by command to the same events and state", () => {
    fc.assert(
      fc.property(generatedSessionArb({ maxSteps: 30 }), (session) => {
        expect(session.commands[0]?.type).toBe("start");
        const state = initialState(session.sessionId);
        const events = session.commands.flatMap((command) => execute(state, command));
        expect(events).toStrictEqual(session.events);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        expect(state).toStrictEqual(session.state);
        expect(foldEvents(initialState(session.sessionId), session.events)).toStrictEqual(state);
      }),
      { numRuns: 100 },
    );
  });
});

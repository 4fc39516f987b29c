import {
  commandKeys,
  decide,
  foldEvents,
  initialState,
  keysOfEvents,
  messageKey,
  NO_KEYS,
  resultKey,
  type SessionCommand,
} from "@palimpsest/core";
import { turnDoneKey, turnKey } from "@palimpsest/core/testing";
import {
  appendCommand,
  assistantMessage,
  execute,
  generatedSessionArb,
  knownKeysOf,
  startedData,
  summaryReplacement,
  supersedeData,
  toolResult,
  userMessage,
} from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

describe("log keys", () => {
  it("of a generated log: every message id it held, every answered call, compaction and turn, and no other", () => {
    fc.assert(
      fc.property(generatedSessionArb(), ({ events }) => {
        const expected = new Set<string>();
        for (const event of events) {
          if (event.type === "message.appended") {
            const { message, turnId } = event.data;
            expected.add(`message:${message.id}`);
            if (message.toolCallId !== undefined) expected.add(`result:${message.toolCallId}`);
            if (turnId !== undefined) expected.add(`turn:${turnId}`);
          } else if (event.type === "messages.superseded") {
            expected.add(`compaction:${event.data.compactionId}`);
            for (const r of event.data.replacements) {
              expected.add(`message:${r.message.id}`);
              if (r.message.toolCallId !== undefined) expected.add(`result:${r.message.toolCallId}`);
            }
          } else if (event.type === "turn.completed") expected.add(`turn-done:${event.data.turnId}`);
        }
        expect(keysOfEvents(events)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it("every command a generated session accepted is refused, or records nothing, when decided again on its keys", () => {
    fc.assert(
      fc.property(generatedSessionArb(), ({ commands, events, sessionId }) => {
        const state = foldEvents(initialState(sessionId), events);
        const known = keysOfEvents(events);
        for (const command of commands.slice(1)) {
          if (commandKeys(command).length === 0) continue;
          let again: unknown;
          try {
            again = decide(state, command, known);
          } catch (error) {
            again = error;
          }
          // A repeated completion records nothing; anything else names an id the log already holds.
          if (command.type === "complete-turn") expect(again).toEqual([]);
          else expect(again).toBeInstanceOf(Error);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("the decider refuses an id the view no longer holds only when told the log holds it", () => {
    const state = initialState("s-keys");
    execute(state, { type: "start", data: startedData() });
    execute(state, appendCommand([userMessage("u1", "first")], 10, "t1"));
    execute(state, appendCommand([assistantMessage("a1", "", ["c1"])]));
    execute(state, appendCommand([toolResult("r1", "c1", "out")]));
    execute(state, appendCommand([userMessage("u2", "second")]));
    execute(state, appendCommand([assistantMessage("a2", "done")]));
    execute(state, {
      type: "supersede",
      data: supersedeData("k1", ["u1", "a1", "r1"], [summaryReplacement("s1", "summary")], 0),
    });
    expect(state.live.map((e) => e.message.id)).toEqual(["s1", "u2", "a2"]);
    const reuse: [SessionCommand, string][] = [
      [appendCommand([userMessage("u1", "again")]), "duplicate-message-id"],
      [appendCommand([assistantMessage("a3", "", ["c1"])]), "duplicate-tool-call-id"],
      [
        { type: "supersede", data: supersedeData("k1", ["s1"], [summaryReplacement("s2", "x")], 1) },
        "supersede-invalid",
      ],
    ];
    for (const [command, rule] of reuse) {
      expect(() => decide(state, command, knownKeysOf(state))).toThrow(
        expect.objectContaining({ details: expect.objectContaining({ rule }) }),
      );
      // Told nothing, the state alone cannot see the reuse: the keys are what keeps ids unique.
      expect(decide(state, command, NO_KEYS).length).toBeGreaterThan(0);
    }
    expect(decide(state, { type: "complete-turn", turnId: "t1" }, knownKeysOf(state))).toHaveLength(1);
    expect(() => decide(state, { type: "complete-turn", turnId: "t1" }, NO_KEYS)).toThrow(/never named/);
    expect(decide(state, { type: "complete-turn", turnId: "t1" }, new Set([turnKey("t1"), turnDoneKey("t1")]))).toEqual(
      [],
    );
  });

  it("reads the keys of a malformed command without throwing (the decider then refuses it)", () => {
    const malformed = [
      {
        type: "append-messages",
        messages: [
          null,
          { message: { id: 3 } },
          { message: { id: "x", role: "tool" } },
          { message: { id: "y", toolCalls: "no" } },
        ],
      },
      { type: "append-messages" },
      { type: "supersede" },
      { type: "supersede", data: { compactionId: "k", replacements: [null, {}] } },
      { type: "complete-turn" },
    ] as unknown as SessionCommand[];
    expect(malformed.map(commandKeys)).toEqual([[messageKey("x"), messageKey("y")], [], [], ["compaction:k"], []]);
    expect(commandKeys(appendCommand([toolResult("r", "c", "t")]))).toEqual([messageKey("r"), resultKey("c")]);
  });
});

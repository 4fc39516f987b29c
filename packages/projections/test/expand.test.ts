import { type DomainEvent, isPalimpsestError, NotFoundError } from "@palimpsest/core";
import { expandCompaction } from "@palimpsest/projections";
import {
  assistantMessage,
  generatedSessionArb,
  stubReplacement,
  summaryReplacement,
  supersedeData,
  toolResult,
  toStoredEvents,
  userMessage,
} from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appends, given } from "./support/session.ts";

const SID = "s-expand";

/**
 * u1 a1(c1,c2) r1 r2 a2 u2 a3 u3 a4, appended one per event: seq 2..10 (seq 1 is the start); u3 and a4,
 * the last user message and reply, are never compacted.
 */
const conversation = [
  userMessage("u1", "list files"),
  assistantMessage("a1", "", ["c1", "c2"]),
  toolResult("r1", "c1", "a.txt b.txt"),
  toolResult("r2", "c2", "c.txt"),
  assistantMessage("a2", "three files"),
  userMessage("u2", "thanks"),
  assistantMessage("a3", "welcome"),
  userMessage("u3", "bye"),
  assistantMessage("a4", "bye"),
];

const summarize = (id: string, targets: string[], summary: string, viewVersion: number) => ({
  type: "supersede" as const,
  data: supersedeData(id, targets, [summaryReplacement(summary, `summary of ${targets.join(" ")}`)], viewVersion),
});

describe("expandCompaction", () => {
  it("returns exactly the superseded originals, in order, with their seq and tokens", () => {
    const { events } = given(SID, ...appends(conversation, 10), summarize("k1", ["u1", "a1", "r1", "r2"], "S1", 0));
    const expanded = expandCompaction(events, "k1");
    expect(expanded).toStrictEqual([
      { message: conversation[0], tokens: 10, seq: 2 },
      { message: conversation[1], tokens: 10, seq: 3 },
      { message: conversation[2], tokens: 10, seq: 4 },
      { message: conversation[3], tokens: 10, seq: 5 },
    ]);
  });

  it("returns the originals behind prune stubs placed with `at`", () => {
    const { events } = given(SID, ...appends(conversation), {
      type: "supersede",
      data: supersedeData(
        "k1",
        ["r1", "r2"],
        [stubReplacement("P1", "c1", "r1"), stubReplacement("P2", "c2", "r2")],
        0,
        {
          mode: "prune",
        },
      ),
    });
    expect(expandCompaction(events, "k1").map((e) => [e.message.id, e.seq])).toEqual([
      ["r1", 4],
      ["r2", 5],
    ]);
  });

  it("returns originals for a retraction with no replacements", () => {
    const { events } = given(SID, ...appends(conversation), {
      type: "supersede",
      data: supersedeData("k1", ["u2", "a3"], [], 0, { mode: "retract" }),
    });
    expect(expandCompaction(events, "k1").map((e) => e.message.id)).toEqual(["u2", "a3"]);
  });

  it("shallow expansion of a summary of a summary returns the earlier summary itself, marked placedBy", () => {
    const { events } = given(
      SID,
      ...appends(conversation),
      summarize("k1", ["u1", "a1", "r1", "r2"], "S1", 0),
      summarize("k2", ["S1", "a2", "u2"], "S2", 1),
    );
    const k1 = events.find((e) => e.type === "messages.superseded" && e.data.compactionId === "k1");
    const expanded = expandCompaction(events, "k2");
    expect(expanded.map((e) => e.message.id)).toEqual(["S1", "a2", "u2"]);
    expect(expanded[0]).toMatchObject({ placedBy: "k1", seq: k1?.seq, tokens: 5 });
    expect(expanded[1]).not.toHaveProperty("placedBy");
  });

  it("deep expansion of a summary of a summary returns the first-appended originals", () => {
    const { events } = given(
      SID,
      ...appends(conversation),
      summarize("k1", ["u1", "a1", "r1", "r2"], "S1", 0),
      summarize("k2", ["S1", "a2", "u2"], "S2", 1),
    );
    const expanded = expandCompaction(events, "k2", true);
    expect(expanded.map((e) => [e.message.id, e.seq])).toEqual([
      ["u1", 2],
      ["a1", 3],
      ["r1", 4],
      ["r2", 5],
      ["a2", 6],
      ["u2", 7],
    ]);
    expect(expanded.every((e) => e.placedBy === undefined)).toBe(true);
    expect(expanded.map((e) => e.message)).toStrictEqual(conversation.slice(0, 6));
  });

  it("deep expansion follows a stub that was pruned again, and a summary over stubs", () => {
    const { events } = given(
      SID,
      ...appends(conversation),
      {
        type: "supersede",
        data: supersedeData("k1", ["r1"], [stubReplacement("P1", "c1", "r1")], 0, { mode: "prune" }),
      },
      {
        type: "supersede",
        data: supersedeData("k2", ["P1"], [stubReplacement("P2", "c1", "P1")], 1, { mode: "prune" }),
      },
      summarize("k3", ["u1", "a1", "P2", "r2"], "S1", 2),
    );
    expect(expandCompaction(events, "k2", true).map((e) => e.message.id)).toEqual(["r1"]);
    expect(expandCompaction(events, "k3", true).map((e) => e.message.id)).toEqual(["u1", "a1", "r1", "r2"]);
    expect(expandCompaction(events, "k3").map((e) => e.message.id)).toEqual(["u1", "a1", "P2", "r2"]);
  });

  it("returns the originals in view order even when the targets were listed out of order", () => {
    const { events } = given(
      SID,
      ...appends(conversation),
      summarize("k1", ["a2", "u1", "r2", "a1", "r1"], "S1", 0),
      summarize("k2", ["u2", "S1"], "S2", 1),
    );
    expect(expandCompaction(events, "k1").map((e) => e.message.id)).toEqual(["u1", "a1", "r1", "r2", "a2"]);
    expect(expandCompaction(events, "k2").map((e) => e.message.id)).toEqual(["S1", "u2"]);
    expect(expandCompaction(events, "k2", true).map((e) => e.message.id)).toEqual(["u1", "a1", "r1", "r2", "a2", "u2"]);
  });

  it("deep expansion of a 5,000-deep chain of micro compactions returns every original once, without recursion", () => {
    const depth = 5000;
    const domain: DomainEvent[] = [
      { type: "message.appended", data: { message: userMessage("u0", "start"), tokens: 1 } },
    ];
    for (let i = 1; i <= depth; i += 1) {
      domain.push({ type: "message.appended", data: { message: assistantMessage(`a${i}`, `step ${i}`), tokens: 1 } });
      const targets = i === 1 ? ["a1"] : [`M${i - 1}`, `a${i}`];
      const marker = { kind: "rolling-summary" as const, message: userMessage(`M${i}`, `so far ${i}`), tokens: 1 };
      domain.push({
        type: "messages.superseded",
        data: supersedeData(`k${i}`, targets, [marker], i - 1, { mode: "micro" }),
      });
    }
    const events = toStoredEvents(SID, domain);
    const expanded = expandCompaction(events, `k${depth}`, true);
    expect(expanded).toHaveLength(depth);
    expect(expanded[0]?.message.id).toBe("a1");
    expect(expanded.at(-1)?.message.id).toBe(`a${depth}`);
    expect(expanded.every((e, i) => e.message.id === `a${i + 1}`)).toBe(true);
  });

  it("deep expansion never returns a message twice when a compaction placed several replacements without `at`", () => {
    const { events } = given(
      SID,
      ...appends(conversation),
      {
        type: "supersede",
        data: supersedeData(
          "k1",
          ["u1", "a1", "r1", "r2"],
          [summaryReplacement("S1", "first half"), summaryReplacement("S1b", "second half")],
          0,
        ),
      },
      summarize("k2", ["S1", "S1b", "a2"], "S2", 1),
    );
    expect(expandCompaction(events, "k2").map((e) => e.message.id)).toEqual(["S1", "S1b", "a2"]);
    expect(expandCompaction(events, "k2", true).map((e) => e.message.id)).toEqual(["u1", "a1", "r1", "r2", "a2"]);
  });

  it("throws NotFoundError (NOT_FOUND) for an unknown compaction id", () => {
    const { events } = given(SID, ...appends(conversation), summarize("k1", ["u1"], "S1", 0));
    let thrown: unknown;
    try {
      expandCompaction(events, "k-missing");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(NotFoundError);
    expect(isPalimpsestError(thrown, "NOT_FOUND")).toBe(true);
    expect((thrown as NotFoundError).details).toEqual({ kind: "compaction", id: "k-missing" });
    expect(() => expandCompaction([], "k1")).toThrow(NotFoundError);
  });

  it("on generated sessions, returns each compaction's targets, and deep expansion reaches appended messages", () => {
    fc.assert(
      fc.property(generatedSessionArb({ maxSteps: 30 }), ({ events }) => {
        const appended = new Map(
          events.flatMap((e) => (e.type === "message.appended" ? [[e.data.message.id, e.seq] as const] : [])),
        );
        for (const event of events) {
          if (event.type !== "messages.superseded") continue;
          const { compactionId, targets } = event.data;
          expect(expandCompaction(events, compactionId).map((e) => e.message.id)).toEqual(targets);
          const deep = expandCompaction(events, compactionId, true);
          const ids = deep.map((e) => e.message.id);
          expect(new Set(ids).size).toBe(ids.length);
          for (const e of deep) {
            expect(e.placedBy).toBeUndefined();
            expect(appended.get(e.message.id)).toBe(e.seq);
          }
          expect(deep.map((e) => e.seq)).toEqual([...deep.map((e) => e.seq)].sort((x, y) => x - y));
        }
      }),
      { numRuns: 100 },
    );
  });
});

import { compactionHistory } from "@palimpsest/projections";
import {
  appendCommand,
  assistantMessage,
  generatedSessionArb,
  stubReplacement,
  summaryReplacement,
  supersedeData,
  toolResult,
  userMessage,
} from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appends, given } from "./support/session.ts";

const SID = "s-history";

describe("compactionHistory", () => {
  it("is empty for a session without compactions", () => {
    const { events } = given(
      SID,
      ...appends([userMessage("u1", "hi"), assistantMessage("a1", "hello")], 10, "t1"),
      { type: "complete-turn", turnId: "t1", usage: { promptTokens: 3 } },
      { type: "record-compaction-failure", data: { mode: "summary", reason: "timeout", attempt: 1, targets: ["u1"] } },
      { type: "hand-off", toSessionId: "s-next" },
    );
    expect(events.map((e) => e.type)).toContain("compaction.failed");
    expect(compactionHistory(events)).toEqual([]);
  });

  it("records every supersede with targets, replacements, producer, stats, basis, seq and time", () => {
    const summary = summaryReplacement("S1", "summary of u1 a1", 7);
    const stub = stubReplacement("P1", "c1", "r1", 2);
    const { events } = given(
      SID,
      ...appends([
        userMessage("u1", "hi"),
        assistantMessage("a1", "hello"),
        userMessage("u2", "run it"),
        assistantMessage("a2", "", ["c1"]),
        toolResult("r1", "c1", "a very long output"),
        assistantMessage("a3", "done"),
      ]),
      {
        type: "supersede",
        data: supersedeData("k1", ["u1", "a1"], [summary], 0, {
          producer: { policy: "summary", summarizerModel: "m", promptVersion: "v1" },
          stats: { tokensBefore: 60, tokensAfter: 47, auxTokensIn: 20, auxTokensOut: 7, durationMs: 12 },
          basis: { viewVersion: 0, prefixHash: "abc" },
        }),
      },
      appendCommand([userMessage("u3", "more")]),
      {
        type: "supersede",
        data: supersedeData("k2", ["r1"], [stub], 1, { mode: "prune", trigger: "auto" }),
      },
    );
    const k1 = events.find((e) => e.type === "messages.superseded" && e.data.compactionId === "k1");
    const k2 = events.find((e) => e.type === "messages.superseded" && e.data.compactionId === "k2");
    if (k1 === undefined || k2 === undefined) throw new Error("compactions missing");

    expect(compactionHistory(events)).toStrictEqual([
      {
        compactionId: "k1",
        seq: k1.seq,
        occurredAt: k1.occurredAt,
        mode: "summary",
        trigger: "manual",
        targets: ["u1", "a1"],
        replacements: [{ id: "S1", kind: "summary", role: "user", tokens: 7 }],
        producer: { policy: "summary", summarizerModel: "m", promptVersion: "v1" },
        stats: { tokensBefore: 60, tokensAfter: 47, auxTokensIn: 20, auxTokensOut: 7, durationMs: 12 },
        basis: { viewVersion: 0, prefixHash: "abc" },
      },
      {
        compactionId: "k2",
        seq: k2.seq,
        occurredAt: k2.occurredAt,
        mode: "prune",
        trigger: "auto",
        targets: ["r1"],
        replacements: [{ id: "P1", kind: "stub", role: "tool", tokens: 2 }],
        producer: { policy: "test" },
        stats: { tokensBefore: 0, tokensAfter: 0 },
        basis: { viewVersion: 1 },
      },
    ]);
    expect(k1.seq).toBe(8);
    expect(k2.seq).toBe(10);
  });

  it("records a retraction with no replacements", () => {
    const { events } = given(SID, ...appends([userMessage("u1", "oops"), userMessage("u2", "real")]), {
      type: "supersede",
      data: supersedeData("k1", ["u1"], [], 0, { mode: "retract" }),
    });
    const [record] = compactionHistory(events);
    expect(record).toMatchObject({ compactionId: "k1", mode: "retract", targets: ["u1"], replacements: [] });
  });

  it("has one record per supersede event of a generated session, in log order", () => {
    fc.assert(
      fc.property(generatedSessionArb({ maxSteps: 30 }), ({ events, state }) => {
        const supersedes = events.filter((e) => e.type === "messages.superseded");
        const records = compactionHistory(events);
        expect(records.map((r) => r.seq)).toEqual(supersedes.map((e) => e.seq));
        expect(records.map((r) => r.compactionId)).toEqual(supersedes.map((e) => e.data.compactionId));
        expect(records).toHaveLength(state.viewVersion);
      }),
      { numRuns: 100 },
    );
  });
});

import { foldEvents, initialState, type StoredEvent } from "@palimpsest/core";
import { activeView, resumeState } from "@palimpsest/projections";
import {
  appendCommand,
  assistantMessage,
  execute,
  generatedSessionArb,
  startedData,
  stubReplacement,
  summaryReplacement,
  supersedeData,
  toolResult,
  userMessage,
} from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appends, given } from "./support/session.ts";

const SID = "s-view";

/** Token total of the view, recomputed from the log alone: appended and placed messages minus superseded ones. */
function tokensFromLog(events: readonly StoredEvent[], ids: readonly string[]): number {
  const tokens = new Map<string, number>();
  for (const event of events) {
    if (event.type === "message.appended") tokens.set(event.data.message.id, event.data.tokens);
    if (event.type === "messages.superseded")
      for (const r of event.data.replacements) tokens.set(r.message.id, r.tokens);
  }
  return ids.reduce((sum, id) => sum + (tokens.get(id) ?? Number.NaN), 0);
}

describe("activeView", () => {
  it("lists live messages in order with the sum of their tokens", () => {
    const { state, events } = given(
      SID,
      appendCommand([userMessage("u1", "hi")], 11),
      appendCommand([assistantMessage("a1", "", ["c1"])], 7),
      appendCommand([toolResult("r1", "c1", "long output")], 300),
      appendCommand([assistantMessage("a2", "done")], 5),
      {
        type: "supersede",
        data: supersedeData("k1", ["r1"], [stubReplacement("P1", "c1", "r1", 2)], 0, { mode: "prune" }),
      },
    );
    const view = activeView(state);
    expect(view.messages.map((m) => m.id)).toEqual(["u1", "a1", "P1", "a2"]);
    expect(view.tokens).toBe(11 + 7 + 2 + 5);
    expect(view).toMatchObject({ sessionId: SID, viewVersion: 1, lastSeq: events.length });
  });

  it("is empty for a session with no messages", () => {
    const { state } = given(SID);
    expect(activeView(state)).toStrictEqual({ sessionId: SID, viewVersion: 0, lastSeq: 1, tokens: 0, messages: [] });
  });

  it("on generated sessions: tokens are the sum, every live message appears once, and resume from the log matches", () => {
    fc.assert(
      fc.property(generatedSessionArb(), ({ sessionId, state, events }) => {
        const view = activeView(state);
        const ids = view.messages.map((m) => m.id);
        expect(view.tokens).toBe(state.live.reduce((sum, e) => sum + e.tokens, 0));
        expect(view.tokens).toBe(tokensFromLog(events, ids));
        expect(new Set(ids).size).toBe(ids.length);
        const superseded = new Set(events.flatMap((e) => (e.type === "messages.superseded" ? e.data.targets : [])));
        expect(ids.filter((id) => superseded.has(id))).toEqual([]);
        const resumed = foldEvents(initialState(sessionId), events);
        expect(activeView(resumed)).toStrictEqual(view);
        expect(resumeState(resumed)).toStrictEqual(resumeState(state));
      }),
      { numRuns: 150 },
    );
  });
});

describe("resumeState", () => {
  it("starts empty after session.started, carrying the settings", () => {
    const started = startedData({
      profile: "anthropic",
      title: "t",
      source: { format: "openai-chat", file: "x.json" },
    });
    const state = initialState(SID);
    execute(state, { type: "start", data: started });
    expect(resumeState(state)).toStrictEqual({
      sessionId: SID,
      lastSeq: 1,
      viewVersion: 0,
      liveMessages: 0,
      liveTokens: 0,
      turns: 0,
      lastUsage: undefined,
      lastCompaction: undefined,
      compactions: 0,
      failedCompactions: 0,
      lineage: { parent: undefined, handedOffTo: undefined },
      rollingSummaryCursor: undefined,
      settings: started,
      erasedAt: undefined,
    });
  });

  it("carries turns, last usage, the last compaction, failures and counts", () => {
    const { state, events } = given(
      SID,
      ...appends([userMessage("u1", "a"), assistantMessage("a1", "b")], 10, "t1"),
      { type: "complete-turn", turnId: "t1", usage: { promptTokens: 20, completionTokens: 3, cacheReadTokens: 4 } },
      ...appends([userMessage("u2", "c"), assistantMessage("a2", "d")], 10, "t2"),
      { type: "complete-turn", turnId: "t2", usage: { promptTokens: 40, completionTokens: 5 } },
      { type: "record-compaction-failure", data: { mode: "summary", reason: "timeout", attempt: 1, targets: ["u1"] } },
      {
        type: "supersede",
        data: supersedeData("k1", ["u1", "a1"], [summaryReplacement("S1", "sum", 4)], 0, {
          stats: { tokensBefore: 40, tokensAfter: 24 },
        }),
      },
      {
        type: "supersede",
        data: supersedeData("k2", ["u2"], [], 1, { mode: "retract", stats: { tokensBefore: 24, tokensAfter: 14 } }),
      },
      appendCommand([userMessage("u3", "e")], 6, "t3"),
      { type: "complete-turn", turnId: "t3" },
    );
    const k2 = events.find((e) => e.type === "messages.superseded" && e.data.compactionId === "k2");
    const resume = resumeState(state);
    expect(resume).toMatchObject({
      sessionId: SID,
      lastSeq: events.length,
      viewVersion: 2,
      liveMessages: 3,
      liveTokens: 4 + 10 + 6,
      turns: 3,
      compactions: 1, // the retraction (k2) moves the view version but is no compaction
      failedCompactions: 1,
      lastCompaction: {
        compactionId: "k2",
        seq: k2?.seq,
        mode: "retract",
        targets: 1,
        tokensBefore: 24,
        tokensAfter: 14,
      },
    });
    // The newest turn reported no usage, so there is none to resume with.
    expect(resume.lastUsage).toBeUndefined();
  });

  it("reports the rolling-summary cursor: the first live message after the live marker", () => {
    const marker = (id: string) => ({
      kind: "rolling-summary" as const,
      message: userMessage(id, "so far"),
      tokens: 3,
    });
    // The last user message and reply (u2, a3) stay live: a marker always has something after it.
    const { state } = given(
      SID,
      ...appends([userMessage("u1", "a"), assistantMessage("a1", "b"), assistantMessage("a2", "c")], 10),
      { type: "supersede", data: supersedeData("m1", ["a1"], [marker("M1")], 0, { mode: "micro" }) },
    );
    expect(resumeState(state).rollingSummaryCursor).toBe("a2");
    execute(state, appendCommand([userMessage("u2", "d"), assistantMessage("a3", "e")]));
    execute(state, {
      type: "supersede",
      data: supersedeData("m2", ["M1", "a2"], [marker("M2")], 1, { mode: "micro" }),
    });
    expect(resumeState(state).rollingSummaryCursor).toBe("u2");
    execute(state, {
      type: "supersede",
      data: supersedeData("k1", ["u1", "M2"], [summaryReplacement("S1", "all")], 2),
    });
    expect(resumeState(state).rollingSummaryCursor).toBeUndefined();
  });

  it("reports the usage of the newest turn", () => {
    const { state } = given(
      SID,
      appendCommand([userMessage("u1", "a")], 10, "t1"),
      { type: "complete-turn", turnId: "t1", usage: { promptTokens: 1 } },
      appendCommand([userMessage("u2", "b")], 10, "t2"),
      { type: "complete-turn", turnId: "t2", usage: { promptTokens: 12, completionTokens: 2 } },
    );
    expect(resumeState(state).lastUsage).toStrictEqual({ promptTokens: 12, completionTokens: 2 });
  });

  it("reports lineage: the parent it was started from and the successor it was handed off to", () => {
    const parent = { sessionId: "s-parent", relation: "handoff" as const };
    const state = initialState(SID);
    execute(state, { type: "start", data: startedData({ parent }) });
    execute(state, appendCommand([userMessage("u1", "continue")]));
    expect(resumeState(state).lineage).toStrictEqual({ parent, handedOffTo: undefined });
    execute(state, { type: "hand-off", toSessionId: "s-child", reason: "rotation" });
    expect(resumeState(state).lineage).toStrictEqual({ parent, handedOffTo: "s-child" });
    expect(resumeState(state).settings?.parent).toStrictEqual(parent);
  });

  it("agrees with the active view on live messages and tokens", () => {
    fc.assert(
      fc.property(generatedSessionArb({ maxSteps: 30 }), ({ state, events }) => {
        const resume = resumeState(state);
        const view = activeView(state);
        expect(resume.liveMessages).toBe(view.messages.length);
        expect(resume.liveTokens).toBe(view.tokens);
        expect(resume.lastSeq).toBe(events.at(-1)?.seq);
        const supersedes = events.filter((e) => e.type === "messages.superseded");
        expect(resume.compactions).toBe(supersedes.filter((e) => e.data.mode !== "retract").length);
        expect(resume.failedCompactions).toBe(events.filter((e) => e.type === "compaction.failed").length);
        expect(resume.turns).toBe(events.filter((e) => e.type === "turn.completed").length);
      }),
      { numRuns: 100 },
    );
  });
});

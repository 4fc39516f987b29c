import { lastTurnIndices, summaryPolicy, tailBudget } from "@palimpsest/core";
import { middleEntries, selectSpan } from "@palimpsest/core/testing";
import { assistantMessage, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { callTools, ids, live, output, policyInput, system } from "./view-builders.ts";

const BUDGET = tailBudget(200_000); // 10,000

describe("selectSpan: head and tail", () => {
  it("given no compaction yet, then the head is the system prompt and the first three messages", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("u1", "a"), 100),
      live(assistantMessage("a1", "b"), 100),
      live(userMessage("u2", "c"), 100),
      live(assistantMessage("a2", "d"), 20_000),
      live(userMessage("u3", "e"), 100),
      live(assistantMessage("a3", "f"), 100),
    ];
    expect(selectSpan(view, BUDGET, 0)).toEqual({ headEnd: 4, tailStart: 5, pinned: new Set() });
  });

  it("given a compaction already ran, then the head shrinks to the system prompt alone", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("u1", "a"), 100),
      live(assistantMessage("a1", "b"), 20_000),
      live(userMessage("u2", "c"), 100),
      live(assistantMessage("a2", "d"), 100),
    ];
    expect(selectSpan(view, BUDGET, 1)).toEqual({ headEnd: 1, tailStart: 3, pinned: new Set() });
  });

  it("given an earlier summary inside the tail's budget, then the tail starts after it (it is folded in)", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("u1", "a"), 100),
      live(assistantMessage("a1", "b"), 20_000),
      live(assistantMessage("s1", "summary"), 100, { compactionId: "c1", kind: "summary" }),
      live(userMessage("u2", "c"), 100),
      live(assistantMessage("a2", "d"), 100),
    ];
    expect(selectSpan(view, BUDGET, 1)).toEqual({ headEnd: 1, tailStart: 4, pinned: new Set() });
  });

  it("given the head would end on a tool call, then it widens over all of the call's results", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("u1", "a"), 100),
      live(
        callTools("a1", [
          ["c1", "shell"],
          ["c2", "shell"],
        ]),
        100,
      ),
      live(output("r1", "c1", "x"), 100),
      live(output("r2", "c2", "y"), 100),
      live(assistantMessage("a2", "d"), 20_000),
      live(userMessage("u2", "e"), 100),
      live(assistantMessage("a3", "f"), 100),
    ];
    expect(selectSpan(view, BUDGET, 0).headEnd).toBe(5);
  });

  it("given the budget ends inside a tool group, then the tail gives up the group rather than split it", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("u1", "a"), 100),
      live(assistantMessage("a1", "b"), 100),
      live(userMessage("u2", "c"), 100),
      live(
        callTools("a2", [
          ["c1", "shell"],
          ["c2", "shell"],
        ]),
        100,
      ),
      live(output("r1", "c1", "x"), 6_000),
      live(output("r2", "c2", "y"), 3_000),
      live(assistantMessage("a3", "done"), 4_000),
    ];
    // a3 + r2 = 7,000 fit; r1 would not: the tail may not start on r2, so it starts at a3.
    expect(selectSpan(view, BUDGET, 0)).toEqual({ headEnd: 4, tailStart: 7, pinned: new Set() });
  });

  it("given tail budget math, then the newest messages that fit in 10,000 tokens form the tail", () => {
    const view = [
      live(system("sys"), 100),
      ...Array.from({ length: 20 }, (_, i) =>
        live(i % 2 === 0 ? userMessage(`u${i}`, "q") : assistantMessage(`a${i}`, "r"), 3_000),
      ),
    ];
    // three messages of 3,000 fit in 10,000, a fourth would not
    expect(selectSpan(view, BUDGET, 1)).toEqual({ headEnd: 1, tailStart: 18, pinned: new Set() });
  });

  it("given a last reply larger than the whole budget, then it and the last user message are pinned, not summarized", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("u1", "a"), 100),
      live(assistantMessage("a1", "b"), 100),
      live(userMessage("u2", "c"), 100),
      live(assistantMessage("a2", "d"), 5_000),
      live(userMessage("u3", "e"), 100),
      live(assistantMessage("a3", "huge"), 30_000),
    ];
    const span = selectSpan(view, BUDGET, 0);
    expect(span).toEqual({ headEnd: 4, tailStart: 7, pinned: new Set([5, 6]) });
    expect(ids(middleEntries(view, span))).toEqual(["a2"]);
  });

  it("given one request followed by a long agent run, then the request is pinned and the run can still be compacted", () => {
    const run = Array.from({ length: 6 }, (_, i) => [
      live(callTools(`a${i}`, [[`c${i}`, "shell"]]), 100),
      live(output(`r${i}`, `c${i}`, `out ${i}`), 4_000),
    ]).flat();
    const view = [live(system("sys"), 100), live(userMessage("task", "do it"), 100), ...run];
    const span = selectSpan(view, BUDGET, 1);
    // the tail holds a4, r4, a5, r5 (8,200); the task and the last reply group (a5, r5) stay live
    expect(span).toMatchObject({ headEnd: 1, tailStart: 10 });
    expect(ids(middleEntries(view, span))).toEqual(["a0", "r0", "a1", "r1", "a2", "r2", "a3", "r3"]);
    const plan = summaryPolicy().plan(policyInput(view, { compactions: 1, force: true }));
    expect(plan).toMatchObject({
      kind: "summary",
      role: "assistant",
      targets: ["a0", "r0", "a1", "r1", "a2", "r2", "a3", "r3"],
    });
  });

  it("given the last reply has tool calls and lies before the tail, then its results are pinned with it", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("u1", "go"), 100),
      live(assistantMessage("x", "thinking"), 100),
      live(callTools("a1", [["c1", "shell"]]), 100),
      live(output("r1", "c1", "big"), 20_000),
    ];
    const span = selectSpan(view, BUDGET, 1);
    expect(span.pinned).toEqual(new Set([1, 3, 4]));
    expect(ids(middleEntries(view, span))).toEqual(["x"]);
  });

  it("given summaries placed by a compaction, then they never count as the last user message or reply", () => {
    const view = [
      live(userMessage("u1", "a"), 10),
      live(assistantMessage("a1", "b"), 10),
      live(userMessage("s", "summary"), 10, { compactionId: "k1", kind: "summary" }),
    ];
    expect(lastTurnIndices(view)).toEqual({ lastUser: 0, lastAssistant: 1 });
  });
});

describe("selectSpan: keeping earlier summaries", () => {
  const summary = (id: string, tokens: number) =>
    live(userMessage(id, "summary"), tokens, { compactionId: `c-${id}`, kind: "summary" });

  it("given summaries after the system prompt, then the head runs through the last of them and the tail is unchanged", () => {
    const view = [
      live(system("sys"), 100),
      summary("s1", 500),
      live(userMessage("u1", "pinned earlier"), 100),
      summary("s2", 500),
      live(assistantMessage("a1", "b"), 20_000),
      live(userMessage("u2", "c"), 100),
      live(assistantMessage("a2", "d"), 100),
    ];
    const folded = selectSpan(view, BUDGET, 2);
    const kept = selectSpan(view, BUDGET, 2, { keepSummaries: true });
    expect(folded.headEnd).toBe(1);
    expect(kept).toEqual({ ...folded, headEnd: 4 });
    expect(ids(middleEntries(view, kept))).toEqual(["a1"]);
  });

  it("given a rolling summary before a summary, then nothing past the rolling summary is kept", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("r1", "rolling"), 300, { compactionId: "m1", kind: "rolling-summary" }),
      summary("s1", 500),
      live(assistantMessage("a1", "b"), 20_000),
      live(userMessage("u2", "c"), 100),
    ];
    expect(selectSpan(view, BUDGET, 2, { keepSummaries: true })).toEqual(selectSpan(view, BUDGET, 2));
  });

  it("given the last summary lies in the tail's budget, then it joins the head and the tail starts after it", () => {
    const view = [
      live(system("sys"), 100),
      live(assistantMessage("a1", "b"), 20_000),
      summary("s1", 100),
      live(userMessage("u2", "c"), 100),
      live(assistantMessage("a2", "d"), 100),
    ];
    const span = selectSpan(view, BUDGET, 1, { keepSummaries: true });
    expect(span).toEqual({ headEnd: 3, tailStart: 3, pinned: new Set() });
    expect(middleEntries(view, span)).toEqual([]);
  });
});

describe("summaryPolicy: the baseline", () => {
  const big = (i: number, tokens = 12_000) =>
    live(i % 2 === 0 ? userMessage(`u${i}`, `question ${i}`) : assistantMessage(`a${i}`, `answer ${i}`), tokens);

  it("given a view under the threshold, when not forced, then there is nothing to do", () => {
    const plan = summaryPolicy().plan(policyInput([live(system("sys"), 100), big(0), big(1)]));
    expect(plan).toMatchObject({ kind: "none" });
    expect(plan.reason).toContain("under the threshold of 100000");
  });

  it("given a view over the threshold, then it summarizes the middle and keeps head and tail", () => {
    const view = [live(system("sys"), 100), ...Array.from({ length: 10 }, (_, i) => big(i))];
    const plan = summaryPolicy().plan(policyInput(view));
    expect(plan).toMatchObject({ kind: "summary", targets: ["a3", "u4", "a5", "u6", "a7"], tokensBefore: 120_100 });
    if (plan.kind !== "summary") throw new Error("expected a summary");
    expect(plan.input.map((e) => e.message.id)).toEqual(plan.targets);
    expect(plan.maxSummaryTokens).toBe(4_500); // 7.5% of the 60,000 tokens it removes
    expect(plan.previousSummary).toBeUndefined();
  });

  it("given a forced run under the threshold, then it still plans a summary", () => {
    const view = [live(system("sys"), 100), ...Array.from({ length: 8 }, (_, i) => big(i, 3_000))];
    expect(summaryPolicy().plan(policyInput(view, { force: true, compactions: 1 }))).toMatchObject({
      kind: "summary",
      targets: ["u0", "a1", "u2", "a3", "u4"],
    });
  });

  it("given nothing between head and tail, then there is nothing to summarize", () => {
    const view = [live(system("sys"), 100), big(0, 50_000), big(1, 60_000)];
    expect(summaryPolicy().plan(policyInput(view))).toMatchObject({ kind: "none" });
  });
});

import {
  checkToolPairs,
  compactionThreshold,
  costOptimalPolicy,
  initialState,
  isSummaryEntry,
  type LiveEntry,
  lastTurnIndices,
  OfflineSummarizer,
} from "@palimpsest/core";
import {
  ANTHROPIC_PROFILE,
  costCandidates,
  decideCompaction,
  estimateTokens,
  OPENAI_PROFILE,
} from "@palimpsest/core/testing";
import { commandForStep, execute, sessionStartedArb, sessionStepArb, userMessage } from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applySummary, callTools, ids, live, output, policyInput, stateInput, system } from "./view-builders.ts";

const summary = (id: string, tokens: number): LiveEntry =>
  live(userMessage(id, `summary ${id}`), tokens, { compactionId: `c-${id}`, kind: "summary" });

/** A view after one compaction: system prompt, an earlier summary of `held` tokens, then `turns` tool turns. */
function compactedView(held: number, turns: number, resultTokens = 1_000): LiveEntry[] {
  const view = [live(system("sys"), 500), summary("s1", held)];
  for (let t = 0; t < turns; t++) {
    view.push(live(userMessage(`u${t}`, `step ${t}`), 200));
    view.push(live(callTools(`a${t}`, [[`c${t}`, "shell"]]), 200));
    view.push(live(output(`r${t}`, `c${t}`, `result ${t}`), resultTokens));
  }
  return view;
}

describe("cost-optimal candidates that keep the earlier summaries", () => {
  it("given a view with a summary, then each tail is offered updating it and keeping it, the kept one after it", () => {
    const view = compactedView(2_000, 40);
    const input = policyInput(view, { compactions: 1 });
    const candidates = costCandidates(input);
    const kept = candidates.filter((c) => c.keepsSummaries);
    const updated = candidates.filter((c) => !c.keepsSummaries);
    expect(kept.length).toBeGreaterThan(0);
    expect(updated.length).toBeGreaterThan(0);
    for (const c of updated) {
      expect(c.plan.targets[0]).toBe("s1");
      expect(c.plan.previousSummary).toBe("summary s1");
      // The summary it updates is rewritten: only the system prompt stays cached.
      expect(c.shape.summaryHeadTokens).toBe(500);
    }
    for (const c of kept) {
      expect(c.plan.targets).not.toContain("s1");
      expect(c.plan.targets[0]).toBe("u0");
      expect(c.plan.previousSummary).toBeUndefined();
      // The summarizer reads only the new span; the unchanged head holds the system prompt and the summary.
      expect(c.shape.headTokens).toBe(2_500);
      expect(c.shape.systemTokens).toBe(500);
      // A breakpoint on the summary keeps all of that head cached.
      expect(c.shape.summaryHeadTokens).toBe(2_500);
      expect(c.shape.inputTokens).toBe(c.shape.removedTokens);
    }
    // Updating gives the new summary room for what the earlier one held; keeping does not need it.
    const updatedFull = updated.find((c) => c.tailBudget === kept[0]?.tailBudget);
    expect(updatedFull?.plan.maxSummaryTokens).toBeGreaterThan(kept[0]?.plan.maxSummaryTokens ?? 0);
  });

  it("given kept summaries and the new one would pass twice the summary cap, in counted tokens, then only updates are offered", () => {
    const cap = OPENAI_PROFILE.summary.maxTokens;
    // The kept summary's expected size over eight turns of 900 tokens: the span's requests and items, counted.
    const probe = costCandidates(policyInput(compactedView(1_000, 8, 500), { compactions: 1 }));
    const keeping = probe.filter((c) => c.keepsSummaries);
    expect(keeping.length).toBeGreaterThan(0);
    const expected = Math.min(...keeping.map((c) => c.shape.summaryTokens));
    // Its budget is the summarizer's (estimateTokens), well over what the summary takes in the prompt: the
    // chain and the prompt are counted, so the cap is too.
    const budget = Math.min(...keeping.map((c) => c.plan.maxSummaryTokens));
    expect(budget).toBeGreaterThanOrEqual(OPENAI_PROFILE.summary.minTokens);
    expect(expected).toBeLessThan(budget / 2);
    const near = costCandidates(policyInput(compactedView(2 * cap - expected, 8, 500), { compactions: 1 }));
    const over = costCandidates(policyInput(compactedView(2 * cap - expected + 1, 8, 500), { compactions: 1 }));
    expect(near.some((c) => c.keepsSummaries)).toBe(true);
    for (const c of near.filter((c) => c.keepsSummaries))
      expect(c.shape.headTokens - c.shape.systemTokens + c.shape.summaryTokens).toBeLessThanOrEqual(2 * cap);
    expect(over.length).toBeGreaterThan(0);
    expect(over.some((c) => c.keepsSummaries)).toBe(false);
  });

  it("given the threshold reached and an earlier summary of requests only, then it keeps that summary, past the cap: no update could make it smaller", async () => {
    // A conversation: a long request at every turn and a long answer with one measured figure.
    const ask = (t: number) => `Question ${t}: ${"please explain once more how the design holds together ".repeat(6)}`;
    const asked = Array.from({ length: 150 }, (_, t) => userMessage(`q${t}`, ask(t)));
    const { text } = await new OfflineSummarizer().summarize({ messages: asked, maxOutputTokens: 1 });
    const held = 15_000;
    expect(estimateTokens(text)).toBeGreaterThan(held);
    const view = [
      live(system("sys"), 500),
      live({ id: "s1", role: "user", content: [{ type: "text", text }] }, held, {
        compactionId: "c-s1",
        kind: "summary",
      }),
    ];
    for (let t = 150; t < 250; t++) {
      view.push(live(userMessage(`u${t}`, ask(t)), 150));
      view.push(
        live(
          { id: `a${t}`, role: "assistant", content: [{ type: "text", text: `It holds: each part took ${t}.5 ms.` }] },
          800,
        ),
      );
    }
    const input = policyInput(view, { compactions: 1 });
    const cap = 2 * OPENAI_PROFILE.summary.maxTokens;
    const decision = decideCompaction(input);
    expect(decision.due).toBe(true);
    // Kept, the summary and the new one pass twice the summary cap; an update would write every request again.
    const kept = decision.candidates.filter((c) => c.keepsSummaries);
    expect(kept.length).toBeGreaterThan(0);
    for (const c of kept)
      expect(c.shape.headTokens - c.shape.systemTokens + c.shape.summaryTokens).toBeGreaterThan(cap);
    for (const c of decision.candidates.filter((c) => !c.keepsSummaries))
      expect(c.need.hardTokens).toBeGreaterThan(held);
    expect(decision.compact).toBe(true);
    expect(decision.chosen?.keepsSummaries).toBe(true);
    expect(decision.chosen?.plan.targets).not.toContain("s1");
    // Every plan drops the figures (the requests alone pass any room), the kept one no more of its span's than
    // summary's would; its own room is less than summary's, which must also hold the earlier summary: the
    // summary it keeps whole is room too.
    const baseline = decision.baseline;
    if (baseline === undefined) throw new Error("summary would compact here");
    expect(baseline.lostFreshItems).toBeGreaterThan(0);
    expect(decision.chosen?.lostFreshItems).toBeLessThanOrEqual(baseline.lostFreshItems);
    expect(decision.chosen?.plan.maxSummaryTokens).toBeLessThan(baseline.budget);
  });

  it("given a small window, then a summary's room for the facts it folds in stops at a quarter of the threshold", () => {
    const view = compactedView(8_000, 40);
    const input = policyInput(view, { compactions: 1, contextWindow: 32_000 });
    const threshold = compactionThreshold(32_000, 0, input.profile.threshold);
    expect(threshold).toBe(27_200);
    const updated = costCandidates(input).filter((c) => !c.keepsSummaries);
    expect(updated.length).toBeGreaterThan(0);
    // The 8,000 tokens held and the fresh span's facts would need more: a quarter of the threshold is 6,800.
    for (const c of updated) expect(c.need.tokens).toBeGreaterThan(6_800);
    for (const c of updated) expect(c.plan.maxSummaryTokens).toBeLessThanOrEqual(6_800);
    expect(updated.some((c) => c.plan.maxSummaryTokens === 6_800)).toBe(true);
    // Each span is offered at the profile's own budget too, dropping more.
    expect(updated.some((c) => c.plan.maxSummaryTokens < 6_800)).toBe(true);
  });

  it("given a view without summaries, then no candidate claims to keep any", () => {
    const view = compactedView(2_000, 40).filter((e) => !isSummaryEntry(e));
    const candidates = costCandidates(policyInput(view));
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates.some((c) => c.keepsSummaries)).toBe(false);
  });

  it("given an automatic prefix cache, then a forced compaction keeps the summary: nothing before the change is written again", () => {
    const view = compactedView(2_000, 40);
    const plan = costOptimalPolicy().plan(policyInput(view, { compactions: 1, force: true }));
    expect(plan.kind).toBe("summary");
    if (plan.kind !== "summary") return;
    expect(plan.targets).not.toContain("s1");
    expect(plan.reason).toContain("earlier summaries kept");
  });
});

describe("cost-optimal over a whole session, compacting as it goes", () => {
  it("keeps the view valid, and a compaction that keeps the earlier summaries leaves them whole and in order, the new one next", () => {
    const seen = { compactions: 0, keeping: 0, updating: 0 };
    const scenario = fc.record({
      started: sessionStartedArb(),
      steps: fc.array(sessionStepArb({ maxTokens: 4_000 }), { minLength: 40, maxLength: 160 }),
      profile: fc.constantFrom(ANTHROPIC_PROFILE, OPENAI_PROFILE),
      contextWindow: fc.constantFrom(32_000, 64_000),
    });
    fc.assert(
      fc.property(scenario, ({ started, steps, profile, contextWindow }) => {
        const state = initialState("s-chain");
        execute(state, { type: "start", data: started });
        const policy = costOptimalPolicy();
        for (const step of steps) {
          const command = commandForStep(state, step);
          if (command !== undefined) execute(state, command);
          const plan = policy.plan(stateInput(state, { contextWindow, profile }));
          if (plan.kind !== "summary") continue;
          const before = state.live;
          const summariesBefore = ids(before.filter(isSummaryEntry));
          const { lastUser, lastAssistant } = lastTurnIndices(before);
          const last = [lastUser, lastAssistant].filter((i) => i >= 0).map((i) => before[i]?.message.id);
          const keeps = summariesBefore.length > 0 && !summariesBefore.some((id) => plan.targets.includes(id));
          const placed = applySummary(state, plan);
          seen.compactions += 1;
          const view = ids(state.live);
          expect(checkToolPairs(state.live.map((e) => e.message))).toEqual([]);
          for (const id of last) expect(view).toContain(id);
          expect(new Set(view).size).toBe(view.length);
          for (const id of plan.targets) expect(view).not.toContain(id);
          if (!keeps) {
            if (summariesBefore.length > 0) seen.updating += 1;
            continue;
          }
          seen.keeping += 1;
          const summariesAfter = ids(state.live.filter(isSummaryEntry));
          expect(summariesAfter.slice(0, summariesBefore.length)).toEqual(summariesBefore);
          expect(summariesAfter).toContain(placed);
          // Nothing before the first target changed: the prefix a prompt cache holds is the same.
          const first = before.findIndex((e) => plan.targets.includes(e.message.id));
          expect(view.slice(0, first)).toEqual(ids(before.slice(0, first)));
          expect(view[first]).toBe(placed);
        }
      }),
      { numRuns: 60, seed: 20261202 },
    );
    expect(seen.keeping).toBeGreaterThan(10);
    expect(seen.updating).toBeGreaterThan(0);
  });
});

import {
  cachedHead,
  checkToolPairs,
  costOptimalPolicy,
  type LiveEntry,
  lastTurnIndices,
  messageText,
  type PolicyInput,
  spanRun,
  summaryPolicy,
} from "@palimpsest/core";
import {
  ANTHROPIC_PROFILE,
  type CostCandidate,
  compactionCost,
  costPerTurnText,
  cycleCostPerTurn,
  decideCompaction,
  LOCAL_PROFILE,
  OPENAI_PROFILE,
  optimalCycleTurns,
  turnGrowth,
} from "@palimpsest/core/testing";
import { generatedSessionArb, runSteps, sessionStartedArb, sessionStepArb, userMessage } from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applySummary, callTools, live, output, policyInput, stateInput, system } from "./view-builders.ts";

/** A session of `turns` turns: a user request, a tool call and its result, each turn `perTurn` tokens. */
function sessionView(turns: number, perTurn: number): LiveEntry[] {
  const view = [live(system("sys"), 500)];
  for (let t = 0; t < turns; t++) {
    view.push(live({ id: `u${t}`, role: "user", content: [{ type: "text", text: `do step ${t}` }] }, perTurn * 0.1));
    view.push(live(callTools(`a${t}`, [[`c${t}`, "shell"]]), perTurn * 0.1));
    view.push(live(output(`r${t}`, `c${t}`, `result ${t}`), perTurn * 0.8));
  }
  return view;
}

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split(
  " ",
);

/**
 * A chatty session after a compaction: the system prompt, an earlier summary of `held` tokens (none when
 * 0), then `turns` turns of a request of `words` words (kept verbatim by every summary: the summary grows
 * with its span) and a prose reply of `replyTokens` tokens holding no fact.
 */
function chattyView(turns: number, words: number, replyTokens: number, held = 0): LiveEntry[] {
  const view = [live(system("sys"), 500)];
  if (held > 0) view.push(live(userMessage("s1", "summary s1"), held, { compactionId: "c-s1", kind: "summary" }));
  for (let t = 0; t < turns; t++) {
    const asked = Array.from({ length: words }, (_, i) => WORDS[(t * 7 + i * 3) % WORDS.length]).join(" ");
    const text = `request ${t}: ${asked}`;
    view.push(live({ id: `u${t}`, role: "user", content: [{ type: "text", text }] }, Math.ceil(text.length / 5)));
    const reply = Array.from({ length: replyTokens }, (_, i) => WORDS[(t + i) % WORDS.length]).join(" ");
    view.push(live({ id: `a${t}`, role: "assistant", content: [{ type: "text", text: reply }] }, replyTokens));
  }
  return view;
}

const MINUTE = 60_000;
const anthropic = (view: LiveEntry[], overrides: Partial<PolicyInput> = {}): PolicyInput =>
  policyInput(view, { profile: ANTHROPIC_PROFILE, ...overrides });

describe("the cost of a compaction", () => {
  const shape = {
    liveTokens: 50_000,
    headTokens: 1_000,
    systemTokens: 400,
    summaryHeadTokens: 700,
    removedTokens: 30_000,
    inputTokens: 30_000,
    summaryTokens: 2_000,
  };

  it("given a warm breakpoint cache, then it pays the summarizer and the premium of writing over reading all after the system prompt", () => {
    const claudeCode = { ...ANTHROPIC_PROFILE.cache, summaryBreakpoint: false };
    const cost = compactionCost(shape, claudeCode, ANTHROPIC_PROFILE.prices, ANTHROPIC_PROFILE.prices, false);
    expect(cost.summarizer).toBeCloseTo((30_000 * 3 + 2_000 * 15) / 1e6, 9);
    // Breakpoints sit at the system prompt and the last messages: the unchanged head past the system
    // prompt has no cache entry of its own, so it is written again too.
    expect(cachedHead(shape, claudeCode)).toBe(400);
    expect(cost.rewrite).toBeCloseTo(((22_000 - 400) * (3.75 - 0.3)) / 1e6, 9);
  });

  it("given a breakpoint on the last summary too, then the head through that summary is read, only the rest written", () => {
    const cache = { ...ANTHROPIC_PROFILE.cache, summaryBreakpoint: true };
    const cost = compactionCost(shape, cache, ANTHROPIC_PROFILE.prices, ANTHROPIC_PROFILE.prices, false);
    expect(cachedHead(shape, cache)).toBe(700);
    expect(cost.rewrite).toBeCloseTo(((22_000 - 700) * (3.75 - 0.3)) / 1e6, 9);
    // A head without a summary: the system prompt alone, as without the breakpoint.
    expect(cachedHead({ ...shape, summaryHeadTokens: shape.systemTokens }, cache)).toBe(400);
  });

  it("given a warm automatic prefix cache, then the whole unchanged head is still read from the cache", () => {
    const { cache, prices } = OPENAI_PROFILE;
    const cost = compactionCost(shape, cache, prices, prices, false);
    expect(cachedHead(shape, cache)).toBe(1_000);
    expect(cost.rewrite).toBeCloseTo(((22_000 - 1_000) * (prices.input - prices.cachedRead)) / 1e6, 9);
  });

  it("given a cold cache, then the rewrite is a credit: the prompt written anyway is smaller", () => {
    const cost = compactionCost(
      shape,
      ANTHROPIC_PROFILE.cache,
      ANTHROPIC_PROFILE.prices,
      ANTHROPIC_PROFILE.prices,
      true,
    );
    expect(cost.rewrite).toBeCloseTo((-28_000 * 3.75) / 1e6, 9);
  });

  it("given a cheaper summarizer model, then only the summarizer's share falls", () => {
    const cheap = { input: 0.8, cachedRead: 0.08, cacheWrite: 1, output: 4 };
    const full = compactionCost(shape, OPENAI_PROFILE.cache, OPENAI_PROFILE.prices, OPENAI_PROFILE.prices, false);
    const less = compactionCost(shape, OPENAI_PROFILE.cache, OPENAI_PROFILE.prices, cheap, false);
    expect(less.summarizer).toBeLessThan(full.summarizer);
    expect(less.rewrite).toBe(full.rewrite);
  });

  it("given a summarizer that reads the conversation, then it pays the live prompt at the cache's price, not the span at its input price", () => {
    const { cache, prices } = ANTHROPIC_PROFILE;
    const warm = compactionCost(shape, cache, prices, prices, false, true);
    expect(warm.summarizer).toBeCloseTo((50_000 * 0.3 + 2_000 * 15) / 1e6, 9);
    // Cold, the provider writes the prompt it reads; the rewrite is the same credit as any summarizer's.
    const cold = compactionCost(shape, cache, prices, prices, true, true);
    expect(cold.summarizer).toBeCloseTo((50_000 * 3.75 + 2_000 * 15) / 1e6, 9);
    expect(cold.rewrite).toBe(compactionCost(shape, cache, prices, prices, true).rewrite);
    // Without a cache it reads the whole prompt at the input price: dearer than the span alone.
    const none = compactionCost(shape, LOCAL_PROFILE.cache, prices, prices, false, true);
    expect(none.summarizer).toBeCloseTo((50_000 * 3 + 2_000 * 15) / 1e6, 9);
  });

  it("given any cost, growth and price, then the optimal cycle is no costlier per turn than any other within the cap", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 5, noNaN: true }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        fc.integer({ min: 1, max: 300 }),
        (cost, growth, read, cap) => {
          const best = optimalCycleTurns(cost, growth, read, cap);
          expect(best).toBeGreaterThanOrEqual(1);
          expect(best).toBeLessThanOrEqual(cap);
          const rate = cycleCostPerTurn(cost, best, growth, read);
          for (let n = 1; n <= cap; n++)
            expect(rate).toBeLessThanOrEqual(cycleCostPerTurn(cost, n, growth, read) + 1e-12);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("the cost-optimal decision", () => {
  it("measures growth per turn since the last summary, without the system prompt", () => {
    expect(turnGrowth(sessionView(10, 2_000))).toBeCloseTo(2_000, 6);
    expect(turnGrowth([live(system("s"), 900)])).toBe(0);
  });

  it("given a warm cache and a young session that compacting would not repay within half its turns, then it waits", () => {
    const view = sessionView(12, 2_000);
    const times = { nowMs: 10 * MINUTE, previousRequestMs: 9 * MINUTE };
    const decision = decideCompaction(anthropic(view, times));
    expect(decision.cold).toBe(false);
    expect(decision.due).toBe(false);
    expect(decision.compact).toBe(false);
    // Carrying the span costs more per turn, but the whole compaction takes longer than 6 turns to repay.
    expect(decision.waitCostPerTurn).toBeGreaterThan(decision.compactCostPerTurn);
    expect((decision.chosen?.now.total ?? 0) / decision.waitCostPerTurn).toBeGreaterThan(12 / 2);
    expect(costOptimalPolicy().plan(anthropic(view, times)).kind).toBe("none");
  });

  it("given the same view after an idle gap past the TTL, then it compacts: the rewrite is free", () => {
    const view = sessionView(12, 2_000);
    const times = { nowMs: 20 * MINUTE, previousRequestMs: 9 * MINUTE };
    const decision = decideCompaction(anthropic(view, times));
    expect(decision.cold).toBe(true);
    expect(decision.compact).toBe(true);
    expect(decision.chosen?.now.rewrite).toBeLessThan(0);
    const plan = costOptimalPolicy().plan(anthropic(view, times));
    expect(plan.kind).toBe("summary");
    expect(plan.reason).toContain("cache cold");
  });

  it("given no times, or a profile without a cache, then the cache is never taken for cold", () => {
    const view = sessionView(12, 2_000);
    expect(decideCompaction(anthropic(view)).cold).toBe(false);
    expect(decideCompaction(anthropic(view, { nowMs: 20 * MINUTE })).cold).toBe(false);
    const local = policyInput(view, { profile: LOCAL_PROFILE, nowMs: 20 * MINUTE, previousRequestMs: 0 });
    expect(decideCompaction(local).cold).toBe(false);
  });

  it("given a summarizer that reads the conversation, then each candidate's summarizer share is the prompt read from the cache", () => {
    const view = sessionView(40, 2_000);
    const input = anthropic(view, { nowMs: 10 * MINUTE, previousRequestMs: 9 * MINUTE });
    const plain = decideCompaction(input);
    const reading = decideCompaction(input, { summarizerReadsConversation: true });
    expect(reading.candidates.length).toBe(plain.candidates.length);
    for (const [i, c] of reading.candidates.entries()) {
      expect(spanRun(view, c.plan.targets)).toBeDefined();
      expect(c.now.summarizer).toBeCloseTo((c.shape.liveTokens * 0.3 + c.shape.summaryTokens * 15) / 1e6, 9);
      // Reading a 40-turn prompt at a tenth of the price costs less than reading most of it in full.
      expect(c.now.summarizer).toBeLessThan(plain.candidates[i]?.now.summarizer ?? 0);
    }
  });

  it("given a span with a message kept inside it, then it is priced as the plain request the runtime sends", () => {
    // One long agent run after a single request: the request stays, pinned inside the span.
    const view = sessionView(10, 2_000);
    view.push(live({ id: "ask", role: "user", content: [{ type: "text", text: "now refactor every module" }] }, 50));
    for (let t = 0; t < 40; t++) {
      view.push(live(callTools(`a${t}`, [[`c${t}`, "shell"]]), 200));
      view.push(live(output(`r${t}`, `c${t}`, `result ${t}`), 1_800));
    }
    const input = anthropic(view, { nowMs: 10 * MINUTE, previousRequestMs: 9 * MINUTE });
    const plain = decideCompaction(input);
    const reading = decideCompaction(input, { summarizerReadsConversation: true });
    const split = reading.candidates.filter((c) => spanRun(view, c.plan.targets) === undefined);
    expect(split.length).toBeGreaterThan(0);
    for (const c of split) {
      const same = plain.candidates.find((p) => p.tailBudget === c.tailBudget && p.keepsSummaries === c.keepsSummaries);
      expect(c.now.summarizer).toBeCloseTo(same?.now.summarizer ?? Number.NaN, 12);
    }
  });

  it("given a long warm session well under the threshold, then it compacts before the baseline once carrying the span costs more", () => {
    const view = sessionView(40, 2_000);
    const input = anthropic(view);
    expect(summaryPolicy().plan(input).kind).toBe("none");
    const decision = decideCompaction(input);
    expect(decision.compact).toBe(true);
    expect(decision.waitCostPerTurn).toBeGreaterThanOrEqual(decision.compactCostPerTurn);
  });
});

describe("the cost-optimal decision, where a summary grows with its span", () => {
  it("counts the summary's own content as a cost of each turn's growth, not of each compaction: it compacts early", () => {
    // Every request is kept verbatim: summarizing these turns in one compaction or in several writes them
    // all once. Spreading them over one cycle made compacting look dearer than carrying the span.
    const decision = decideCompaction(anthropic(chattyView(40, 80, 300), { compactions: 1 }));
    expect(decision.due).toBe(false);
    expect(decision.compact).toBe(true);
    expect(decision.waitCostPerTurn).toBeGreaterThanOrEqual(decision.compactCostPerTurn);
    const chosen = decision.chosen as CostCandidate;
    expect(chosen.lostItems).toBe(0);
    // What it writes for the span's requests is most of the summary; the frame is the rest.
    expect(chosen.spanSummaryTokens).toBeGreaterThan(0.8 * chosen.shape.summaryTokens);
    expect(chosen.spanSummaryTokens).toBeLessThan(chosen.shape.summaryTokens);
  });

  it("prices each candidate's summary content per turn of growth: a dearer output costs every turn at least that", () => {
    const input = anthropic(chattyView(40, 80, 300), { compactions: 1 });
    const prices = ANTHROPIC_PROFILE.prices;
    const dearer = { ...prices, output: prices.output * 4 };
    const base = decideCompaction(input, { summarizerPrices: prices });
    const more = decideCompaction(input, { summarizerPrices: dearer });
    expect(base.candidates.length).toBeGreaterThan(1);
    for (const [i, c] of base.candidates.entries()) {
      const spanWrite = (c.spanSummaryTokens / c.freshTokens) * base.growth * (dearer.output - prices.output);
      // The spread fixed part rises too (never falls): the whole rise is at least the span's share.
      expect((more.candidates[i]?.costPerTurn ?? 0) - c.costPerTurn).toBeGreaterThanOrEqual(spanWrite / 1e6 - 1e-12);
      expect(spanWrite).toBeGreaterThan(0);
    }
  });

  it("given the last turns a summary can keep every fact, then it compacts though a steady cycle would wait", () => {
    // Past them the new summary no longer fits beside the kept one (the kept chain's cap): only an update
    // is offered, which must fold the earlier summary in and outgrows the room a summary may take; nothing
    // may compact before the threshold, and waiting means carrying the whole span there.
    const closing = decideCompaction(anthropic(chattyView(50, 120, 600, 9_000), { compactions: 1 }));
    expect(closing.waitCostPerTurn).toBeLessThan(closing.compactCostPerTurn);
    expect(closing.lossFreeTurns).toBeLessThan(8);
    expect(closing.compact).toBe(true);
    expect(closing.chosen?.lostItems).toBe(0);
    expect(closing.reason).toContain("a summary keeping every fact is on offer about");
    // A session whose new summary has room for many more turns: the same steady rule waits.
    const open = decideCompaction(anthropic(chattyView(40, 80, 300, 9_000), { compactions: 1 }));
    expect(open.waitCostPerTurn).toBeLessThan(open.compactCostPerTurn);
    expect(open.lossFreeTurns).toBeGreaterThan(8);
    expect(open.compact).toBe(false);
  });

  it("given a young session in those last turns, then compacting must repay within the turns it is expected to live", () => {
    // 50 turns run, no compaction yet, a reply's figures cuttable: of the D turns left before the threshold
    // a session that has run L turns is expected to live L × ln(1 + D / L) (the Lindy prior), fewer than D.
    // The compaction would repay within D, not within those: it waits.
    const view = chattyView(50, 60, 400);
    for (const [i, turn] of view.entries()) {
      if (turn.message.role !== "assistant") continue;
      const figures = Array.from({ length: 10 }, (_, k) => `case ${k} took ${i * 100 + k}.5 ms`).join(", ");
      const text = `${messageText(turn.message)} ${figures}`;
      view[i] = live({ ...turn.message, content: [{ type: "text", text }] }, turn.tokens + 80);
    }
    const young = anthropic(view);
    const decision = decideCompaction(young);
    const payback = (decision.chosen?.now.total ?? 0) / decision.waitCostPerTurn;
    const turnsToDue = (100_000 - young.liveTokens) / decision.growth;
    expect(decision.lossFreeTurns).toBeLessThan(8);
    expect(decision.waitCostPerTurn).toBeLessThan(decision.compactCostPerTurn);
    expect(payback).toBeLessThan(turnsToDue);
    expect(payback).toBeGreaterThan(50 * Math.log1p(turnsToDue / 50));
    expect(decision.compact).toBe(false);
  });

  it("given a span a summary keeps whole at any size (requests and prose only), then its plan never closes", () => {
    // No fact in it may be dropped, so no budget drops one: past the recall cap the summary only grows.
    const decision = decideCompaction(anthropic(chattyView(60, 120, 300)));
    expect(decision.chosen?.need.tokens).toBeGreaterThan(ANTHROPIC_PROFILE.summary.maxTokens);
    expect(decision.chosen?.need.tokens).toBe(decision.chosen?.need.hardTokens);
    expect(decision.lossFreeTurns).toBe(Number.POSITIVE_INFINITY);
    expect(decision.compact).toBe(false);
  });

  it("given a price on facts or the threshold reached, then it does not say how long a loss-free plan stays on offer", () => {
    expect(decideCompaction(anthropic(chattyView(50, 120, 600, 9_000)), { lostFactUsd: 0.01 }).lossFreeTurns).toBe(
      undefined,
    );
    expect(decideCompaction(anthropic(chattyView(50, 120, 600, 9_000), { force: true })).lossFreeTurns).toBe(undefined);
  });
});

/** Any generated session under each profile and a window where it may or may not reach the threshold. */
const scenarioArb = fc.record({
  session: fc.oneof(
    generatedSessionArb({ maxSteps: 60, maxTokens: 20_000 }),
    fc
      .tuple(sessionStartedArb(), fc.array(sessionStepArb({ maxTokens: 6_000 }), { minLength: 30, maxLength: 120 }))
      .map(([started, steps]) => runSteps("s-long", started, steps)),
  ),
  profile: fc.constantFrom(ANTHROPIC_PROFILE, OPENAI_PROFILE, LOCAL_PROFILE),
  contextWindow: fc.constantFrom(32_000, 64_000, 200_000),
  idleMinutes: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
});

/** Several tails, so that spans of different sizes compete. */
const TAILS = [1, 0.5, 0.25, 0.1];

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function inputOf(s: Scenario): PolicyInput {
  const times = s.idleMinutes === undefined ? {} : { nowMs: s.idleMinutes * MINUTE + 1, previousRequestMs: 1 };
  const { contextWindow, profile } = s;
  return stateInput(s.session.state, {
    contextWindow,
    maxOutputTokens: Math.floor(contextWindow / 4),
    profile,
    ...times,
  });
}

describe("the cost-optimal decision, on any session", () => {
  it("never compacts later than the summary baseline: where summary plans a summary, so does cost-optimal", () => {
    let due = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const input = inputOf(s);
        if (summaryPolicy().plan(input).kind !== "summary") return;
        due += 1;
        expect(costOptimalPolicy().plan(input).kind).toBe("summary");
      }),
      { numRuns: 300, seed: 20261202 },
    );
    expect(due).toBeGreaterThan(20);
  });

  it("chooses no costlier a span than any it considered, compacts early only when waiting costs more, and keeps the invariants", () => {
    const seen = { early: 0, choices: 0, fallbacks: 0 };
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const input = inputOf(s);
        const decision = decideCompaction(input, { tailShares: TAILS });
        const { chosen } = decision;
        if (chosen !== undefined) {
          // Without a price on facts, only those that drop none, or due, give summary's room and drop no more
          // of their span's facts than summary's would are considered.
          const fair = decision.candidates.filter(
            (c) =>
              c.lostItems <= 1e-9 ||
              (decision.baseline !== undefined &&
                c.plan.maxSummaryTokens >= decision.baseline.budget &&
                c.lostFreshItems <= decision.baseline.lostFreshItems + 1e-9),
          );
          const fewest = Math.min(...decision.candidates.map((c) => c.lostItems));
          const allowed =
            fair.length > 0 || !decision.due ? fair : decision.candidates.filter((c) => c.lostItems <= fewest + 1e-9);
          expect(allowed).toContainEqual(chosen);
          const considered = allowed.filter((c) => c.reclaims >= decision.floor);
          if (considered.length > 1) seen.choices += 1;
          if (considered.length === 0) seen.fallbacks += 1;
          // Cheapest of those that reclaim the floor; due with none that does, the one that reclaims most.
          for (const other of considered) expect(chosen.costPerTurn).toBeLessThanOrEqual(other.costPerTurn);
          if (considered.length === 0)
            for (const other of allowed) expect(chosen.reclaims).toBeGreaterThanOrEqual(other.reclaims);
        }
        if (decision.compact && !decision.due) {
          seen.early += 1;
          // Waiting costs more, or a plan that drops no fact is in its last turns on offer (fewer than 8).
          if (decision.waitCostPerTurn < decision.compactCostPerTurn) expect(decision.lossFreeTurns).toBeLessThan(8);
          // Before the threshold, without a price on facts, it never drops one.
          expect(decision.chosen?.lostItems).toBe(0);
        }
        // Due, it always compacts unless there is nothing between the protected head and tail.
        if (decision.due && !decision.compact) expect(decision.candidates).toEqual([]);
        const plan = costOptimalPolicy({ tailShares: TAILS }).plan(input);
        if (plan.kind !== "summary") return;
        const state = s.session.state;
        const { lastUser, lastAssistant } = lastTurnIndices(state.live);
        const kept = [lastUser, lastAssistant].filter((i) => i >= 0).map((i) => state.live[i]?.message.id);
        applySummary(state, plan);
        const view = state.live.map((m) => m.message);
        expect(checkToolPairs(view)).toEqual([]);
        for (const id of kept) expect(view.map((m) => m.id)).toContain(id);
      }),
      { numRuns: 300, seed: 20261202 },
    );
    expect(seen.early).toBeGreaterThan(2);
    expect(seen.choices).toBeGreaterThan(2);
    expect(seen.fallbacks).toBeGreaterThan(0);
  });
});

describe("a compaction's cost per turn in words", () => {
  it("says a credit saves, never prints a negative cost", () => {
    expect(costPerTurnText("compacting", 0.01234)).toBe("compacting $0.01234/turn");
    const credit = costPerTurnText("compacting", -0.10276);
    expect(credit).toMatch(/^compacting saves \$0\.10276\/turn \(/);
    expect(credit).not.toContain("$-");
  });
});

/**
 * At the threshold, a plan that keeps the earlier summaries whole counts them as room of its own against the
 * room summary's own summary would have (docs/compaction.md, "Recall against cost"). Both budgets are in the
 * summarizer's units (estimateTokens), so the kept summaries are too, and only they count: the other messages
 * an earlier compaction kept before them are in summary's span, where its dropped facts already count them.
 */
import type { LiveEntry, Message } from "@palimpsest/core";
import { type CostCandidate, decideCompaction, estimateTokens } from "@palimpsest/core/testing";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { callTools, live, output, policyInput, system } from "./view-builders.ts";

const counter = await createTokenCounter("o200k_base");

/** A tool output of `count` distinct measured numbers from `base` (each a fact a summary may drop). */
const timings = (base: number, count: number) =>
  Array.from({ length: count }, (_, i) => `case ${i} took ${base + i}.5 ms`).join("\n");

/**
 * A view after a first compaction that kept the first three messages (a request, a call and its output of
 * `head` tokens holding a fact per 100 of them), then `held`, then 40 turns with eight facts each.
 */
function compactedView(head: number, held: LiveEntry): LiveEntry[] {
  const view = [
    live(system("sys"), 500),
    live(userMessage("h0", "Port the parser to the new API"), 100),
    live(callTools("h1", [["c-h", "shell", JSON.stringify({ command: "make bench" })]]), 50),
    live(output("h2", "c-h", timings(1_000_000, head / 100)), head),
    held,
  ];
  for (let t = 0; t < 40; t++) {
    view.push(live(userMessage(`u${t}`, `step ${t}`), 200));
    view.push(live(callTools(`a${t}`, [[`c${t}`, "shell", JSON.stringify({ command: `ls src/m${t}` })]]), 200));
    view.push(live(output(`r${t}`, `c${t}`, timings(1_000 * (t + 1), 8)), 1_000));
  }
  return view;
}

/** An earlier summary of `text`, counted as `tokens`. */
const summary = (text: string, tokens: number): LiveEntry =>
  live(userMessage("s1", text), tokens, { compactionId: "c-s1", kind: "summary" });

/** Forced (so due), one tail. */
function decide(view: LiveEntry[]) {
  return decideCompaction(policyInput(view, { compactions: 1, force: true }), { tailShares: [1] });
}

describe("cost-optimal at the threshold: the room of a plan that keeps the earlier summaries", () => {
  it("given messages an earlier compaction kept before its summary, then they are not room: only the summary is", () => {
    const decision = decide(compactedView(4_000, summary("summary s1", 100)));
    const { baseline, chosen } = decision;
    if (baseline === undefined || chosen === undefined) throw new Error("summary would compact here");
    expect(baseline.lostFreshItems).toBeGreaterThan(0);
    // The plan keeping the summary at the profile's budget has less room than summary's, even counting the
    // summary (100 tokens), and drops no more of its span's facts: counting the 4,150 tokens kept before the
    // summary, it passed. It is refused.
    const keeping = decision.candidates.find((c) => c.keepsSummaries && c.lostItems > 0) as CostCandidate;
    expect(keeping.plan.maxSummaryTokens + 100).toBeLessThan(baseline.budget);
    expect(keeping.plan.maxSummaryTokens + 4_150 + 100).toBeGreaterThanOrEqual(baseline.budget);
    expect(keeping.lostFreshItems).toBeGreaterThan(0);
    expect(keeping.lostFreshItems).toBeLessThanOrEqual(baseline.lostFreshItems);
    expect(keeping.allowed).toBe(false);
    expect(chosen.allowed).toBe(true);
    expect(chosen.plan.maxSummaryTokens + chosen.keptSummaryTokens).toBeGreaterThanOrEqual(baseline.budget);
  });

  it("given a kept summary of prose, then its room is its text's estimate, the budgets' units, not its counted tokens", () => {
    const text =
      `The parser now reads the new API. ${"It keeps the old names for the callers that still use them. ".repeat(21)}`.trimEnd();
    const message: Message = userMessage("s1", text);
    const counted = counter.countMessage(message);
    const estimate = estimateTokens(text);
    // Prose: the session counts far fewer tokens than the summarizer's estimate.
    expect(counted).toBeLessThan(0.75 * estimate);
    const decision = decide(compactedView(4_000, summary(text, counted)));
    const { baseline, chosen } = decision;
    if (baseline === undefined || chosen === undefined) throw new Error("summary would compact here");
    // The plan keeping the summary at the profile's budget has room enough only in the summarizer's units,
    // and is allowed.
    const keeping = decision.candidates.find((c) => c.keepsSummaries && c.lostItems > 0) as CostCandidate;
    expect(keeping.keptSummaryTokens).toBe(estimate);
    expect(keeping.plan.maxSummaryTokens + counted).toBeLessThan(baseline.budget);
    expect(keeping.plan.maxSummaryTokens + estimate).toBeGreaterThanOrEqual(baseline.budget);
    expect(keeping.allowed).toBe(true);
    expect(chosen.allowed).toBe(true);
  });
});

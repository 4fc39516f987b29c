import {
  candidateIsFresh,
  type LiveEntry,
  planCandidate,
  planDelta,
  summaryPolicy,
  validateCandidate,
} from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { policyInput } from "../compaction/view-builders.ts";
import { candidateFor, candidateInput, exchanges, SUMMARIZER } from "./precompact-fixtures.ts";

function candidateOver(view: LiveEntry[]) {
  const plan = planCandidate(candidateInput(view));
  if (plan.kind !== "candidate") throw new Error(plan.reason);
  return { plan, candidate: candidateFor(plan.key, plan.targets) };
}

describe("planDelta: what a hit still summarizes", () => {
  it("given a candidate and a compaction over a grown view, then only the messages after it are read, continuing its summary", () => {
    const early = exchanges(12);
    const { candidate } = candidateOver(early);
    const view = exchanges(17);
    const plan = summaryPolicy().plan(policyInput(view));
    if (plan.kind !== "summary") throw new Error(plan.reason);
    const context = { sessionId: "s1", view, handedOffTo: undefined, summarizer: SUMMARIZER, targets: plan.targets };
    const verdict = validateCandidate(candidate, context);
    if (!verdict.hit) throw new Error(verdict.detail);
    const delta = planDelta(candidate, plan, view, verdict.covered);
    expect([...candidate.targets, ...delta.targets]).toEqual(plan.targets);
    expect(delta.input.map((e) => e.message.id)).toEqual(delta.targets);
    expect(delta.targets[0]).toBe("r11");
    expect(delta.previousSummary).toBe(candidate.summary);
  });
});

describe("candidateIsFresh: whether a new job is worth it", () => {
  const context = (view: LiveEntry[]) => ({ sessionId: "s1", view, handedOffTo: undefined, summarizer: SUMMARIZER });

  it("given a valid candidate and few new stable tokens, then it is fresh; with many, it is not", () => {
    const { candidate } = candidateOver(exchanges(12));
    const view = exchanges(13);
    const { plan } = candidateOver(view);
    expect(candidateIsFresh(candidate, plan, context(view), 8_000)).toBe(true);
    expect(candidateIsFresh(candidate, plan, context(view), 1_000)).toBe(false);
  });

  it("given a candidate that no longer validates, then it is never fresh", () => {
    const { candidate } = candidateOver(exchanges(12));
    const view = exchanges(13, "You are a reviewer.");
    expect(candidateIsFresh(candidate, candidateOver(view).plan, context(view), 1_000_000)).toBe(false);
  });
});

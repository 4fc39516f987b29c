import {
  candidateIsFresh,
  type LiveEntry,
  planCandidate,
  planDelta,
  summaryPolicy,
  validateCandidate,
} from "@palimpsest/core";
import { userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { callTools, live, output, policyInput } from "../compaction/view-builders.ts";
import { at, candidateFor, candidateInput, exchanges, SUMMARIZER } from "./precompact-fixtures.ts";

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

/** Three exchanges, then one last request and a long agent run after it (`steps` calls, no user message). */
function agentRun(steps: number): LiveEntry[] {
  const view = exchanges(3);
  view.push(at(5, live(userMessage("u4", "now fix everything"), 100)));
  for (let n = 1; n <= steps; n++) {
    view.push(
      at(5, live(callTools(`s${n}`, [[`k${n}`, "shell"]]), 100)),
      at(5, live(output(`o${n}`, `k${n}`, "ok"), 6_000)),
    );
  }
  return view;
}

describe("planCandidate over a long agent run after one request (the request pinned inside the middle)", () => {
  it("given the pinned request, then the candidate summarizes past it, and a hit's delta is only what came after", () => {
    const early = agentRun(12);
    const { plan: candidatePlan, candidate } = candidateOver(early);
    expect(candidate.targets).not.toContain("u4");
    expect(candidate.targets).toContain("s1");
    expect(candidatePlan.input.map((e) => e.message.id)).toEqual(candidate.targets);
    const view = agentRun(16);
    const plan = summaryPolicy().plan(policyInput(view));
    if (plan.kind !== "summary") throw new Error(plan.reason);
    expect(plan.targets).not.toContain("u4");
    const context = { sessionId: "s1", view, handedOffTo: undefined, summarizer: SUMMARIZER, targets: plan.targets };
    const verdict = validateCandidate(candidate, context);
    if (!verdict.hit) throw new Error(verdict.detail);
    const delta = planDelta(candidate, plan, view, verdict.covered);
    expect([...candidate.targets, ...delta.targets]).toEqual(plan.targets);
    expect(delta.targets.length).toBeLessThan(candidate.targets.length);
  });

  it("given a new request after the candidate, then the old one joins the span and the candidate misses", () => {
    const { candidate } = candidateOver(agentRun(12));
    const view = agentRun(16);
    view.push(at(6, live(userMessage("u5", "and the docs"), 100)));
    for (let n = 17; n <= 20; n++) {
      view.push(
        at(6, live(callTools(`s${n}`, [[`k${n}`, "shell"]]), 100)),
        at(6, live(output(`o${n}`, `k${n}`, "ok"), 6_000)),
      );
    }
    const plan = summaryPolicy().plan(policyInput(view));
    if (plan.kind !== "summary") throw new Error(plan.reason);
    expect(plan.targets).toContain("u4");
    const context = { sessionId: "s1", view, handedOffTo: undefined, summarizer: SUMMARIZER, targets: plan.targets };
    expect(validateCandidate(candidate, context)).toMatchObject({ hit: false, reason: "span-changed" });
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

import {
  type CandidatePlan,
  type LiveEntry,
  planCandidate,
  prefixHash,
  systemPromptHash,
  validateCandidate,
} from "@palimpsest/core";
import { userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { live, system } from "../compaction/view-builders.ts";
import { candidateFor, candidateInput, exchanges, SUMMARIZER } from "./precompact-fixtures.ts";

function planned(view: LiveEntry[], systemPrompt?: string): CandidatePlan {
  const plan = planCandidate(candidateInput(view, systemPrompt === undefined ? {} : { systemPrompt }));
  if (plan.kind !== "candidate") throw new Error(`no candidate: ${plan.reason}`);
  return plan;
}

/** The context of a compaction over `view` whose span starts with `targets` and runs on to `more`. */
function contextFor(view: LiveEntry[], targets: string[], more: string[] = []) {
  return { sessionId: "s1", view, handedOffTo: undefined, summarizer: SUMMARIZER, targets: [...targets, ...more] };
}

describe("planCandidate: the key of a background summary", () => {
  it("given a view under the soft threshold, then there is nothing to prepare", () => {
    expect(planCandidate(candidateInput(exchanges(8))).kind).toBe("none");
  });

  it("given a view over it, then the key names the last stable message and hashes everything up to it", () => {
    const view = exchanges(12);
    const plan = planned(view);
    expect(plan.targets[0]).toBe("r1");
    expect(plan.key).toEqual({
      sessionId: "s1",
      lastMessageId: "t11",
      prefixHash: prefixHash(view.slice(0, 44)),
      systemPromptHash: systemPromptHash(view),
      summarizerModel: SUMMARIZER.model,
      promptVersion: SUMMARIZER.promptVersion,
    });
    expect(plan.input.map((e) => e.message.id)).toEqual(plan.targets);
  });

  it("given the same prefix with different message ids, then the prefix hash is the same (it is what the model sees)", () => {
    const view = exchanges(12);
    const renamed = view.map((e) => ({ ...e, message: { ...e.message, id: `x-${e.message.id}` } }));
    expect(prefixHash(renamed)).toBe(prefixHash(view));
  });
});

describe("validateCandidate: hit or miss against the current view", () => {
  const view = exchanges(12);
  const plan = planned(view);
  const candidate = candidateFor(plan.key, plan.targets);

  it("given an unchanged prefix and new messages after it, then it is a hit covering the candidate's targets", () => {
    const grown = [...view, live(userMessage("u13", "next"), 100)];
    expect(validateCandidate(candidate, contextFor(grown, plan.targets, ["r11"]))).toEqual({
      hit: true,
      covered: plan.targets.length,
    });
  });

  it("given an undo or retry superseded its last message, then it misses: prefix changed", () => {
    const undone = view.filter((e) => e.message.id !== "t11" && e.message.id !== "a11");
    expect(validateCandidate(candidate, contextFor(undone, plan.targets))).toMatchObject({
      hit: false,
      reason: "prefix-changed",
    });
  });

  it("given a message inside the prefix changed, then it misses: prefix changed", () => {
    const changed = view.map((e) =>
      e.message.id === "u5" ? { ...e, message: userMessage("u5", "a different request") } : e,
    );
    expect(validateCandidate(candidate, contextFor(changed, plan.targets))).toMatchObject({
      hit: false,
      reason: "prefix-changed",
    });
  });

  it("given another summarizer model or prompt version, then it misses: summarizer changed", () => {
    for (const summarizer of [
      { ...SUMMARIZER, model: "gpt-5-mini" },
      { ...SUMMARIZER, promptVersion: "v2" },
    ]) {
      expect(validateCandidate(candidate, { ...contextFor(view, plan.targets), summarizer })).toMatchObject({
        hit: false,
        reason: "summarizer-changed",
      });
    }
  });

  it("given a changed system prompt (in the view, or kept outside it), then it misses: system prompt changed", () => {
    const reprompted = [{ ...(view[0] as LiveEntry), message: system("sys", "You are a reviewer.") }, ...view.slice(1)];
    expect(validateCandidate(candidate, contextFor(reprompted, plan.targets))).toMatchObject({
      hit: false,
      reason: "system-prompt-changed",
    });
    const external = planned(view, "prompt A");
    const keyed = candidateFor(external.key, external.targets);
    expect(validateCandidate(keyed, { ...contextFor(view, plan.targets), systemPrompt: "prompt A" }).hit).toBe(true);
    expect(validateCandidate(keyed, { ...contextFor(view, plan.targets), systemPrompt: "prompt B" })).toMatchObject({
      hit: false,
      reason: "system-prompt-changed",
    });
  });

  it("given the session was handed off, then it misses: handed off", () => {
    expect(validateCandidate(candidate, { ...contextFor(view, plan.targets), handedOffTo: "s2" })).toMatchObject({
      hit: false,
      reason: "handed-off",
    });
  });

  it("given a compaction span that no longer starts with the candidate's prefix, then it misses: span changed", () => {
    expect(validateCandidate(candidate, contextFor(view, plan.targets.slice(1)))).toMatchObject({
      hit: false,
      reason: "span-changed",
    });
  });
});

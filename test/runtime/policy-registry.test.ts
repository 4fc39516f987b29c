import { isPalimpsestError, type ProviderProfile } from "@palimpsest/core";
import { ANTHROPIC_PROFILE, LOCAL_PROFILE, OPENAI_PROFILE } from "@palimpsest/core/testing";
import { REPLAY_RUN_NAMES, replayRun } from "@palimpsest/eval";
import { POLICIES, POLICY_NAMES } from "@palimpsest/runtime";
import { defaultPolicyName, policyNamed } from "@palimpsest/runtime/testing";
import { describe, expect, it } from "vitest";

describe("the compaction policy registry", () => {
  it("lists summary, prune-first and cost-optimal, and each definition makes a policy of its own name", () => {
    expect(POLICY_NAMES).toEqual(["summary", "prune-first", "cost-optimal"]);
    for (const definition of POLICIES) {
      expect(definition.create({ countTokens: () => 1 }).name).toBe(definition.name);
      expect(policyNamed(definition.name)).toBe(definition);
    }
  });

  it("given a profile, then its default is prune-first where a cache is at stake and the summary baseline otherwise", () => {
    const profiles: [ProviderProfile, string][] = [
      [ANTHROPIC_PROFILE, "prune-first"],
      [OPENAI_PROFILE, "prune-first"],
      [LOCAL_PROFILE, "summary"],
    ];
    for (const [profile, name] of profiles) expect(defaultPolicyName(profile)).toBe(name);
  });

  it("refuses an unknown policy with a ValidationError naming the policies", () => {
    expect.assertions(2);
    try {
      policyNamed("bogus");
    } catch (error) {
      expect(isPalimpsestError(error, "VALIDATION")).toBe(true);
      expect(String((error as Error).message)).toContain("unknown policy bogus");
    }
  });

  it("derives the replay run names in the order they had when listed by hand", () => {
    expect(REPLAY_RUN_NAMES).toEqual([
      "none",
      "summary",
      "prune-first",
      "cost-optimal",
      "micro",
      "micro+summary",
      "micro+prune-first",
      "micro+cost-optimal",
    ]);
    expect(REPLAY_RUN_NAMES.map((name) => replayRun(name))).toEqual([
      { name: "none", policy: "none", micro: false },
      { name: "summary", policy: "summary", micro: false },
      { name: "prune-first", policy: "prune-first", micro: false },
      { name: "cost-optimal", policy: "cost-optimal", micro: false },
      { name: "micro", policy: "none", micro: true },
      { name: "micro+summary", policy: "summary", micro: true },
      { name: "micro+prune-first", policy: "prune-first", micro: true },
      { name: "micro+cost-optimal", policy: "cost-optimal", micro: true },
    ]);
    expect(replayRun("micro+bogus")).toBeUndefined();
  });
});

import { compactionThreshold, customProfile, runwayTarget, tailBudget } from "@palimpsest/core";
import { ANTHROPIC_PROFILE, DEFAULT_RUNWAY_RULE, LOCAL_PROFILE, OPENAI_PROFILE } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

describe("compactionThreshold", () => {
  it.each([
    [64_000, 0, 54_400],
    [200_000, 65_536, 67_232],
    [200_000, 0, 100_000],
    [100_000, 0, 64_000],
  ])("given a %i window with %i reserved for output, then it triggers at %i", (context, output, expected) => {
    expect(compactionThreshold(context, output)).toBe(expected);
  });

  it("given a window smaller than the output reserve, then it triggers at zero instead of going negative", () => {
    expect(compactionThreshold(4_096, 8_192)).toBe(0);
  });
});

describe("tailBudget", () => {
  it.each([
    [200_000, 10_000],
    [1_000_000, 25_000],
    [600_000, 15_000],
    [8_192, 1_638],
  ])("given a %i window, then the tail holds %i tokens (10K–25K at 2.5%%, at most 20%%)", (context, expected) => {
    expect(tailBudget(context)).toBe(expected);
  });
});

describe("runwayTarget", () => {
  it("given a threshold of 100,000, then a prune must land 20,000 below it (the minimum beats 15%)", () => {
    expect(runwayTarget(100_000, DEFAULT_RUNWAY_RULE)).toBe(80_000);
  });

  it("given a threshold of 400,000, then 15% of it (60,000) is the runway", () => {
    expect(runwayTarget(400_000, DEFAULT_RUNWAY_RULE)).toBe(340_000);
  });
});

describe("provider profiles", () => {
  it("prefer pruning where the prompt cache makes mutations costly, and summaries for local models", () => {
    expect(
      [ANTHROPIC_PROFILE, OPENAI_PROFILE, LOCAL_PROFILE].map((p) => [p.name, p.preferPrune, p.cache.kind]),
    ).toEqual([
      ["anthropic", true, "explicit-breakpoint"],
      ["openai", true, "automatic-prefix"],
      ["local", false, "none"],
    ]);
    expect(OPENAI_PROFILE.cache.granularityTokens).toBe(128);
    expect(ANTHROPIC_PROFILE.prices.cacheWrite).toBeGreaterThan(ANTHROPIC_PROFILE.prices.input);
  });

  it("given overrides, when building a custom profile, then they merge rule by rule over the base", () => {
    const profile = customProfile(
      { runway: { pruneMinimumTokens: 5_000 }, protectedTools: ["grep"] },
      ANTHROPIC_PROFILE,
    );
    expect(profile.name).toBe("custom");
    expect(profile.runway).toEqual({ pruneMinimumTokens: 5_000, ratio: 0.45 });
    expect(profile.protectedTools).toEqual(["grep"]);
    expect(profile.cache).toEqual(ANTHROPIC_PROFILE.cache);
  });
});

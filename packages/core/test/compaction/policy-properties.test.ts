import {
  type CompactionPlan,
  type CompactionPolicy,
  checkToolPairs,
  customProfile,
  lastTurnIndices,
  type ProviderProfile,
  pruneFirstPolicy,
  type SessionState,
  summaryPolicy,
  summaryReplacementFor,
} from "@palimpsest/core";
import { ANTHROPIC_PROFILE, LOCAL_PROFILE, OPENAI_PROFILE } from "@palimpsest/core/testing";
import {
  execute,
  generatedSessionArb,
  runSteps,
  sessionStartedArb,
  sessionStepArb,
  supersedeData,
} from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTokens } from "./view-builders.ts";

const profiles = [
  ANTHROPIC_PROFILE,
  OPENAI_PROFILE,
  LOCAL_PROFILE,
  customProfile({
    tail: { minTokens: 500, maxTokens: 2_000 },
    runway: { pruneMinimumTokens: 100 },
    pruneMinOutputTokens: 10,
  }),
];

/** Generated sessions with large messages, half of them long enough to leave a middle between head and tail. */
const sessionArb = fc.oneof(
  generatedSessionArb({ maxSteps: 60, maxTokens: 30_000 }),
  fc
    .tuple(sessionStartedArb(), fc.array(sessionStepArb({ maxTokens: 30_000 }), { minLength: 30, maxLength: 90 }))
    .map(([started, steps]) => runSteps("s-long", started, steps)),
);

interface Scenario {
  session: { state: SessionState };
  profile: ProviderProfile;
  contextWindow: number;
  maxOutputTokens: number;
  force: boolean;
}

const anyScenario = fc.record({
  session: sessionArb,
  profile: fc.constantFrom(...profiles),
  contextWindow: fc.constantFrom(8_192, 32_000, 64_000, 128_000, 200_000, 1_000_000),
  maxOutputTokens: fc.constantFrom(0, 4_096, 16_384),
  force: fc.boolean(),
});

/** Commits `plan` through decide (placeholder summary text); decide throws if it refuses it. */
function apply(state: SessionState, plan: Exclude<CompactionPlan, { kind: "none" }>): void {
  const id = `k${state.lastSeq + 1}`;
  const replacements =
    plan.kind === "summary"
      ? [summaryReplacementFor(plan, `${id}.s`, "placeholder summary", countTokens)]
      : plan.replacements;
  const data = supersedeData(id, plan.targets, replacements, state.viewVersion, {
    mode: plan.kind,
    trigger: "auto",
    stats: { tokensBefore: plan.tokensBefore, tokensAfter: plan.kind === "prune" ? plan.tokensAfter : 0 },
  });
  execute(state, { type: "supersede", data });
}

/** Plans, applies and checks the view; returns the plan's kind. */
function planAndApply(scenario: Scenario, policy: CompactionPolicy): CompactionPlan["kind"] {
  const { state } = scenario.session;
  const plan = policy.plan({
    view: state.live,
    viewVersion: state.viewVersion,
    liveTokens: state.liveTokens,
    contextWindow: scenario.contextWindow,
    maxOutputTokens: scenario.maxOutputTokens,
    profile: scenario.profile,
    compactions: state.viewVersion,
    force: scenario.force,
  });
  if (plan.kind === "none") return plan.kind;
  const { lastUser, lastAssistant } = lastTurnIndices(state.live);
  const kept = [lastUser, lastAssistant].filter((i) => i >= 0).map((i) => state.live[i]?.message.id);
  expect(new Set(plan.targets).size).toBe(plan.targets.length);
  apply(state, plan);
  const view = state.live.map((m) => m.message);
  expect(checkToolPairs(view)).toEqual([]);
  for (const id of kept) expect(view.map((m) => m.id)).toContain(id);
  return plan.kind;
}

describe("any plan, applied through decide, keeps the view valid", () => {
  it("given any session, profile and window, then summary and prune-first plans are accepted, keep tool pairs whole and keep the last user message and reply", () => {
    const seen = { summary: 0, prune: 0, none: 0 };
    const policy = fc.constantFrom(summaryPolicy(), pruneFirstPolicy({ countTokens }));
    fc.assert(
      fc.property(anyScenario, policy, (scenario, p) => {
        seen[planAndApply(scenario, p)] += 1;
      }),
      { numRuns: 400, seed: 20261130 }, // fixed: the coverage count below depends on it
    );
    expect(seen.summary).toBeGreaterThan(50);
  });

  it("given forced prune-first runs on large windows, then its prunes are accepted and keep the view valid", () => {
    const seen = { summary: 0, prune: 0, none: 0 };
    const scenario = fc.record({
      session: sessionArb,
      profile: fc.constantFrom(...profiles),
      contextWindow: fc.constantFrom(1_000_000, 2_000_000),
      maxOutputTokens: fc.constant(0),
      force: fc.constant(true),
    });
    fc.assert(
      fc.property(scenario, (s) => {
        seen[planAndApply(s, pruneFirstPolicy({ countTokens }))] += 1;
      }),
      { numRuns: 200, seed: 20261130 }, // fixed: the coverage count below depends on it
    );
    expect(seen.prune).toBeGreaterThan(20);
  });
});

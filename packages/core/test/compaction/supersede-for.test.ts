import {
  liveTargetTokens,
  type PolicyInput,
  pruneFirstPolicy,
  type SessionState,
  summaryPolicy,
  summaryReplacementFor,
  supersedeFor,
} from "@palimpsest/core";
import { ANTHROPIC_PROFILE } from "@palimpsest/core/testing";
import { execute, generatedSessionArb, stubReplacement } from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTokens, stateInput } from "./view-builders.ts";

const sessionArb = generatedSessionArb({ maxSteps: 60, maxTokens: 30_000 });

/** A forced plan's input on a state (so most generated sessions get a summary or a prune). */
function inputOf(state: SessionState, contextWindow: number): PolicyInput {
  return stateInput(state, { contextWindow, profile: ANTHROPIC_PROFILE, force: true });
}

describe("supersedeFor", () => {
  it("given any session and any live targets, then its defaults are the state's basis, live tokens and the removed-plus-replaced sum the sites wrote by hand", () => {
    fc.assert(
      fc.property(sessionArb, fc.nat(), fc.nat({ max: 50 }), (session, pick, replacementTokens) => {
        const { state } = session;
        const live = state.live.map((e) => e.message.id);
        const targets = live.filter((_, i) => (pick >> (i % 30)) & 1);
        if (targets.length === 0) return;
        const replacements = [stubReplacement("r1", "c1", targets[0] as string, replacementTokens)];
        const data = supersedeFor(state, {
          compactionId: "k1",
          mode: "retract",
          trigger: "manual",
          producer: { policy: "test" },
          targets,
          replacements,
        });
        const removed = state.live.reduce((n, e) => (targets.includes(e.message.id) ? n + e.tokens : n), 0);
        expect(data.basis).toEqual({ viewVersion: state.viewVersion });
        expect(data.stats).toEqual({
          tokensBefore: state.liveTokens,
          tokensAfter: state.liveTokens - removed + replacementTokens,
        });
        expect(liveTargetTokens(state, targets)).toBe(removed);
        expect(data.targets).toEqual(targets);
      }),
      { numRuns: 200, seed: 20261201 },
    );
  });

  it("given explicit basis, tokens, aux and duration, then they are kept as given (and undefined aux is left out)", () => {
    fc.assert(
      fc.property(
        sessionArb,
        fc.record({ before: fc.nat(), removed: fc.nat(), after: fc.option(fc.nat(), { nil: undefined }) }),
        fc.option(fc.nat(), { nil: undefined }),
        (session, tokens, auxIn) => {
          const { state } = session;
          const target = state.live[0]?.message.id;
          if (target === undefined) return;
          const data = supersedeFor(state, {
            compactionId: "k1",
            mode: "precompact",
            trigger: "auto",
            producer: { policy: "summary" },
            targets: [target],
            replacements: [],
            basis: { viewVersion: 7, prefixHash: "h" },
            tokensBefore: tokens.before,
            removedTokens: tokens.removed,
            ...(tokens.after === undefined ? {} : { tokensAfter: tokens.after }),
            aux: { in: auxIn, out: undefined },
            durationMs: 3,
          });
          expect(data.basis).toEqual({ viewVersion: 7, prefixHash: "h" });
          expect(data.stats).toEqual({
            tokensBefore: tokens.before,
            tokensAfter: tokens.after ?? tokens.before - tokens.removed,
            durationMs: 3,
            ...(auxIn === undefined ? {} : { auxTokensIn: auxIn }),
          });
        },
      ),
      { numRuns: 100, seed: 20261201 },
    );
  });

  it("given any summary or prune plan a policy makes, then the event it builds is accepted by decide and its tokensAfter is the view's live tokens after the fold", () => {
    let applied = 0;
    fc.assert(
      fc.property(
        sessionArb,
        fc.constantFrom(summaryPolicy(), pruneFirstPolicy({ countTokens })),
        fc.constantFrom(8_192, 32_000, 200_000),
        (session, policy, contextWindow) => {
          const { state } = session;
          const plan = policy.plan(inputOf(state, contextWindow));
          if (plan.kind === "none") return;
          const replacements =
            plan.kind === "summary"
              ? [summaryReplacementFor(plan, "k.s", "a summary", countTokens)]
              : plan.replacements;
          const data = supersedeFor(state, {
            compactionId: "k",
            mode: plan.kind,
            trigger: "auto",
            producer: { policy: policy.name },
            targets: plan.targets,
            replacements,
          });
          if (plan.kind === "prune") expect(data.stats.tokensAfter).toBe(plan.tokensAfter);
          expect(data.stats.tokensBefore).toBe(plan.tokensBefore);
          execute(state, { type: "supersede", data });
          expect(state.liveTokens).toBe(data.stats.tokensAfter);
          applied++;
        },
      ),
      { numRuns: 200, seed: 20261201 },
    );
    expect(applied).toBeGreaterThan(20);
  });
});

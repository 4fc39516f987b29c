import { customProfile, initialState, pruneFirstPolicy, type SessionState } from "@palimpsest/core";
import { danglingDuplicateStubs, duplicateReference, LOCAL_PROFILE, OPENAI_PROFILE } from "@palimpsest/core/testing";
import { appendCommand, execute, startedData, supersedeData, userMessage } from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callTools, countTokens, output } from "./view-builders.ts";

/** Tool outputs drawn from a small pool, so identical outputs are common. */
const OUTPUTS = ["same listing", "FAIL: 3 tests", "file text\n".repeat(40), "ok"];

/** One exchange: a user message, a call of `tool`, its output (pool index) of `tokens`, a reply. */
const exchangeArb = fc.record({
  tool: fc.constantFrom("shell", "grep", "read_file"),
  text: fc.nat({ max: OUTPUTS.length - 1 }),
  tokens: fc.integer({ min: 50, max: 6_000 }),
  prune: fc.boolean(),
});

type Exchange = typeof exchangeArb extends fc.Arbitrary<infer T> ? T : never;

/** Appends exchange `n` to `state` through the decider. */
function append(state: SessionState, n: number, ex: Exchange): void {
  execute(state, appendCommand([userMessage(`u${n}`, `step ${n}`)], 20));
  execute(state, appendCommand([callTools(`a${n}`, [[`c${n}`, ex.tool]])], 30));
  execute(state, appendCommand([output(`t${n}`, `c${n}`, OUTPUTS[ex.text] ?? "")], ex.tokens));
  execute(state, appendCommand([userMessage(`r${n}`, `done ${n}`)], 20));
}

const profiles = [OPENAI_PROFILE, LOCAL_PROFILE, customProfile({ pruneMinOutputTokens: 10, protectedTools: [] })];

describe("prune-first never leaves a dangling duplicate stub", () => {
  it("given sessions with repeated tool outputs pruned again and again, then after every prune each duplicate stub names a live, whole result", () => {
    let pointers = 0;
    fc.assert(
      fc.property(
        fc.array(exchangeArb, { minLength: 4, maxLength: 30 }),
        fc.constantFrom(...profiles),
        (exchanges, profile) => {
          const state = initialState("s");
          execute(state, { type: "start", data: startedData() });
          const policy = pruneFirstPolicy({ countTokens });
          exchanges.forEach((ex, n) => {
            append(state, n, ex);
            if (!ex.prune) return;
            const plan = policy.plan({
              view: state.live,
              viewVersion: state.viewVersion,
              liveTokens: state.liveTokens,
              contextWindow: 2_000_000,
              maxOutputTokens: 0,
              profile,
              compactions: state.viewVersion,
              force: true,
            });
            if (plan.kind !== "prune") return;
            const data = supersedeData(`p${n}`, plan.targets, plan.replacements, state.viewVersion, { mode: "prune" });
            execute(state, { type: "supersede", data });
            expect(danglingDuplicateStubs(state.live)).toEqual([]);
            pointers += plan.replacements.filter((r) => duplicateReference(r.message) !== undefined).length;
          });
        },
      ),
      { numRuns: 120, seed: 20261201 }, // fixed: the coverage count below depends on it
    );
    expect(pointers).toBeGreaterThan(50);
  });
});

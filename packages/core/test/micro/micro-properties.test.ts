import { checkToolPairs, type SessionState } from "@palimpsest/core";
import { turnDoneKey, turnKey } from "@palimpsest/core/testing";
import {
  execute,
  type GeneratedSession,
  generatedSessionArb,
  knownKeysOf,
  runSteps,
  sessionStepArb,
  startedData,
} from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Answer, markers, pass, settings } from "./micro-fixtures.ts";

/** A summarizer's answers, pass by pass: failures, short summaries, or long ones that push the marker to defrag. */
const answersArb = fc.array(
  fc.oneof(
    fc.constant<Answer>("fail"),
    fc.nat({ max: 1_200 }).map<Answer>((n) => ({ text: `## Completed Actions\n- ${"y".repeat(n)}` })),
  ),
  { minLength: 1, maxLength: 30 },
);

/** Longer conversations than the default generator's (30 to 90 steps), so passes have exchanges to absorb. */
const longSessionArb = fc
  .array(sessionStepArb({ maxTokens: 300 }), { minLength: 30, maxLength: 90 })
  .map((steps) => runSteps("s-long", startedData(), steps));

function userIds(state: SessionState): Set<string> {
  return new Set(state.live.filter((e) => e.message.role === "user").map((e) => e.message.id));
}

/** Runs the passes and checks the invariants after each; returns how many exchanges were absorbed. */
function runPasses(session: GeneratedSession, answers: readonly Answer[], tailTokens: number): number {
  const { state } = session;
  const keys = knownKeysOf(state);
  const open = `t${state.turns + 1}`; // the kit names each turn after the ones completed before it
  if (keys.has(turnKey(open)) && !keys.has(turnDoneKey(open))) execute(state, { type: "complete-turn", turnId: open });
  const micro = settings({ defragLimitTokens: 300, maxAttempts: 2 });
  let absorbed = 0;
  for (const answer of answers) {
    const users = userIds(state);
    const planned = pass(state, answer, micro, tailTokens);
    if (planned.kind === "absorb") {
      absorbed += answer === "fail" ? 0 : 1;
      for (const id of planned.targets) expect(users.has(id)).toBe(false);
      expect(planned.exchange.every((e) => e.placedBy?.kind !== "summary")).toBe(true);
    }
    expect(checkToolPairs(state.live.map((e) => e.message))).toEqual([]);
    expect(markers(state).length).toBeLessThanOrEqual(1);
    expect(userIds(state)).toEqual(users);
  }
  return absorbed;
}

describe("micro-compaction on generated sessions", () => {
  for (const [name, sessions] of [
    ["generated sessions", generatedSessionArb({ maxSteps: 60, maxTokens: 300 })],
    ["long conversations", longSessionArb],
  ] as const) {
    it(`given ${name}, applying micro plans through decide keeps tool pairs whole, at most one marker live, and every user message`, () => {
      let absorbed = 0;
      fc.assert(
        fc.property(sessions, answersArb, fc.integer({ min: 0, max: 400 }), (session, answers, tailTokens) => {
          absorbed += runPasses(session, answers, tailTokens);
        }),
        { numRuns: 200, seed: 20261130 }, // fixed: the coverage check below counts what the runs absorbed
      );
      expect(absorbed).toBeGreaterThan(20);
    });
  }
});

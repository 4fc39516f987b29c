/**
 * A policy defined in this file and registered nowhere, with a micro schedule of its own (two passes a
 * turn): given as `policy` in the settings, the runtime's after-turn step and a replay both plan with its
 * planner and run its schedule, with no other change anywhere.
 */
import { type CompactionPolicy, definedFields, summaryPolicy } from "@palimpsest/core";
import { LOCAL_PROFILE } from "@palimpsest/core/testing";
import { replaySession } from "@palimpsest/eval/testing";
import {
  callbackSink,
  type MicroSchedule,
  onePassSchedule,
  openPalimpsest,
  type PolicyDefinition,
  TelemetryRecorder,
} from "@palimpsest/runtime";
import { describe, expect, it } from "vitest";
import { generatedSession } from "../replay/generated-transcript.ts";
import { toolStep } from "../support/exchange.ts";

/** How often the own policy planned and its schedule ran, per session. */
interface Calls {
  planned: number;
  scheduled: Map<string, number>;
}

/** The summary baseline under another name, counting its plans, with two micro passes after every turn. */
function ownPolicy(calls: Calls): PolicyDefinition {
  const twoPasses: MicroSchedule = async (session, options) => {
    calls.scheduled.set(session.id, (calls.scheduled.get(session.id) ?? 0) + 1);
    return [...(await onePassSchedule(session, options)), ...(await onePassSchedule(session, options))];
  };
  return {
    name: "own",
    summary: "the summary baseline, two micro passes a turn",
    create: ({ antiThrash }): CompactionPolicy => {
      const base = summaryPolicy(definedFields({ antiThrash }));
      return {
        name: "own",
        plan: (input) => {
          calls.planned += 1;
          return base.plan(input);
        },
      };
    },
    microSchedule: twoPasses,
  };
}

describe("a policy defined outside the registry", () => {
  it("given as the runtime's policy, then every after-turn step plans with it and runs its micro schedule", async () => {
    const calls: Calls = { planned: 0, scheduled: new Map() };
    const micro: string[] = [];
    const runtime = await openPalimpsest({
      url: ":memory:",
      compaction: { auto: true, micro: {}, policy: ownPolicy(calls), profile: "local", contextWindow: 64_000 },
      telemetry: new TelemetryRecorder({
        sink: callbackSink((line) => void (line.kind === "micro" && micro.push(line.outcome))),
      }),
    });
    try {
      const session = await runtime.startSession();
      for (let n = 0; n < 12; n++) {
        await session.append(toolStep(n, "output ".repeat(2_000)), { turnId: `turn${n}` });
        await session.completeTurn(`turn${n}`);
      }
      expect(calls.planned).toBeGreaterThanOrEqual(12); // its planner, once a turn (under the threshold: no compaction)
      expect(calls.scheduled.get(session.id)).toBe(12);
      expect(micro.length).toBe(24); // two passes a turn, one telemetry line each
      expect(micro).toContain("absorbed");
    } finally {
      await runtime.close();
    }
  });

  it("given as a replay's policy, then every compaction step plans with it and runs its micro schedule", async () => {
    const calls: Calls = { planned: 0, scheduled: new Map() };
    const runtime = await openPalimpsest({ url: ":memory:" });
    try {
      const source = generatedSession({ steps: 30, shellTokens: 2_000, readTokens: 500 });
      const replay = await replaySession(runtime, source, {
        policy: ownPolicy(calls),
        micro: {},
        profile: LOCAL_PROFILE,
        contextWindow: 64_000,
      });
      expect(calls.planned).toBeGreaterThan(0);
      expect(calls.scheduled.get(replay.sessionId)).toBeGreaterThan(0);
      // Two passes before a request are observed as one batch: `micro`, never a lone pass's `defrag`.
      expect(replay.compactions.filter((c) => c.kind === "micro").length).toBeGreaterThan(0);
    } finally {
      await runtime.close();
    }
  });
});

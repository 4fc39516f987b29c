/**
 * Cost-optimal against summary on generated sessions of each shape (tool-heavy, chatty, long idle gaps),
 * under both cached profiles: by default its mean recall is at least summary's (it compacts early only when
 * the summary has room for every fact, and at the threshold drops no more of the span's facts than summary's
 * would) and nothing overflows. Replayed through the eval package as `palimpsest replay` does (the trade a
 * price on lost facts allows is tested with the runtime, test/runtime/lost-fact-usd.test.ts).
 */
import { replayTranscript } from "@palimpsest/eval";
import { describe, expect, it } from "vitest";
import { type SessionKind, shapedSession } from "./shaped-session.ts";

const KINDS: SessionKind[] = ["tool-heavy", "chatty", "idle-gaps"];

describe("cost-optimal keeps summary's recall on sessions it was not tuned on", () => {
  for (const profile of ["anthropic", "openai"]) {
    it(`on each generated shape under ${profile} at a 64K window`, { timeout: 120_000 }, async () => {
      for (const kind of KINDS) {
        const session = shapedSession({ kind, steps: 110, seed: 7 });
        const { policies } = await replayTranscript([session], {
          policies: ["summary", "cost-optimal"],
          profile,
          contextWindow: 64_000,
        });
        const [summary, optimal] = policies;
        expect(summary?.compressionEvents, kind).toBeGreaterThan(0);
        expect(optimal?.overflowTurns, kind).toBe(0);
        expect(optimal?.fidelity.meanRecall, kind).toBeGreaterThanOrEqual(summary?.fidelity.meanRecall ?? 1);
      }
    });
  }

  it("passes lostFactUsd to the policy: a value that is no amount of dollars is refused as VALIDATION", async () => {
    const session = shapedSession({ kind: "tool-heavy", steps: 60, seed: 7 });
    const replay = replayTranscript([session], { policies: ["cost-optimal"], contextWindow: 16_000, lostFactUsd: -1 });
    await expect(replay).rejects.toMatchObject({ code: "VALIDATION", details: { path: "lostFactUsd" } });
  });

  it("replays micro+cost-optimal with lostFactUsd: the micro batches take the replay's options as they are", async () => {
    const session = shapedSession({ kind: "tool-heavy", steps: 60, seed: 7 });
    const { policies } = await replayTranscript([session], {
      policies: ["micro+cost-optimal"],
      contextWindow: 16_000,
      lostFactUsd: 0.1,
    });
    expect(policies[0]?.overflowTurns).toBe(0);
  });
});

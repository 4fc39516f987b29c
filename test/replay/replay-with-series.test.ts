import { describe, expect, it } from "vitest";
import { replayWithSeries } from "../../packages/cli/src/report-sources/replay-report-data.ts";
import { generatedSession } from "./generated-transcript.ts";

const SHAPE = { steps: 30, shellTokens: 2_500, readTokens: 300 };

describe("replayWithSeries", () => {
  it("builds each policy's series from that policy's runs, and still calls the caller's onSessionReplayed", async () => {
    const sessions = [generatedSession(SHAPE, "first"), generatedSession({ ...SHAPE, steps: 12 }, "second")];
    const called: string[] = [];
    const { replay, series } = await replayWithSeries(
      sessions,
      {
        profile: "openai",
        contextWindow: 64_000,
        onSessionReplayed: (run, policy) => called.push(`${policy} ${run.estimates.length}`),
      },
      ["none", "prune-first", "none"],
    );
    // 30 and 12 steps, two requests each: every run of every policy, in order.
    expect(called).toEqual(["none 60", "none 24", "prune-first 60", "prune-first 24", "none 60", "none 24"]);
    expect(series.map((s) => s.label)).toEqual(["none", "prune-first", "none"]);
    for (const s of series) {
      expect(s.requests).toHaveLength(84);
      expect(s.requests.filter((r) => r.firstOfSession).map((r) => r.x)).toEqual([1, 61]);
    }
    expect(series.map((s) => s.compactions.length)).toEqual(replay.policies.map((p) => p.compressionEvents));
    expect(series[1]?.compactions.length).toBeGreaterThan(0);
  });
});

import { initialState, telemetryFromLog } from "@palimpsest/core";
import {
  appendCommand,
  assistantMessage,
  execute,
  startedData,
  summaryReplacement,
  supersedeData,
  toolResult,
  userMessage,
} from "@palimpsest/testing";
import { describe, expect, it } from "vitest";

const marker = (id: string, text: string, tokens: number) =>
  ({ kind: "rolling-summary", message: userMessage(id, text), tokens }) as const;

/**
 * Every message costs 10 tokens: u1, (a1 c1 → t1), (a2 c2 → t2), u2 = 60 live tokens compacted (the stats
 * say so), then u3 and a3 (0 tokens), the last user message and reply, which no compaction may absorb.
 */
function log() {
  const state = initialState("s1");
  const events = [
    ...execute(state, { type: "start", data: startedData() }),
    ...execute(
      state,
      appendCommand([
        userMessage("u1", "hi"),
        assistantMessage("a1", "x", ["c1"]),
        toolResult("t1", "c1", "out"),
        assistantMessage("a2", "y", ["c2"]),
        toolResult("t2", "c2", "out"),
        userMessage("u2", "more"),
      ]),
    ),
    ...execute(state, appendCommand([userMessage("u3", "and?"), assistantMessage("a3", "done")], 0)),
  ];
  const micro = (id: string, targets: string[], tokens: number, before: number, after: number, mode = "micro") =>
    execute(state, {
      type: "supersede",
      data: supersedeData(id, targets, [marker(`m-${id}`, "rolling", tokens)], state.viewVersion, {
        mode: mode as "micro",
        stats: { tokensBefore: before, tokensAfter: after, durationMs: 5 },
      }),
    });
  events.push(...micro("k1", ["a1", "t1"], 8, 60, 48));
  events.push(
    ...execute(state, {
      type: "record-compaction-failure",
      data: { mode: "micro", reason: "timeout", attempt: 1, targets: ["a2", "t2"] },
    }),
  );
  events.push(...micro("k2", ["m-k1", "a2", "t2"], 12, 48, 42));
  events.push(...micro("k3", ["m-k2"], 6, 42, 36, "defrag"));
  events.push(
    ...execute(state, {
      type: "supersede",
      data: supersedeData("k4", ["m-k3", "u2"], [summaryReplacement("sum", "all of it", 4)], state.viewVersion, {
        stats: { tokensBefore: 36, tokensAfter: 14 },
      }),
    }),
  );
  return events;
}

describe("telemetryFromLog", () => {
  it("projects supersedes of every mode and failures onto lines with running totals", () => {
    const lines = telemetryFromLog(log(), { threshold: 100 });
    expect(lines.map((l) => [l.kind, l.mode, l.outcome, l.tokensBefore, l.tokensAfter, l.delta])).toEqual([
      ["micro", "micro", "absorbed", 60, 48, -12],
      ["micro", "micro", "failed", 48, 48, 0],
      ["micro", "micro", "absorbed", 48, 42, -6],
      ["micro", "defrag", "defragged", 42, 36, -6],
      ["batch", "summary", "compacted", 36, 14, -22],
    ]);
    // Exchange tokens: the absorbed targets except the previous rolling summary (2 × 10 both times).
    expect(lines.map((l) => l.exchangeTokens)).toEqual([20, undefined, 20, undefined, undefined]);
    expect(lines.map((l) => l.rollingSummaryTokens)).toEqual([8, undefined, 12, 6, undefined]);
    expect(lines.map((l) => l.thresholdOccupancy)).toEqual([0.48, 0.48, 0.42, 0.36, 0.14]);
    expect(lines[1]?.failureReason).toBe("timeout");
    expect(lines.at(-1)?.totals).toEqual({ passes: 5, tokensSaved: 46, failures: 1 });
    expect(lines[0]?.ts).toBe("2025-01-01T00:00:10.000Z");
  });

  it("leaves occupancy out without a threshold, and has no lines for a log without passes", () => {
    expect(telemetryFromLog(log())[0]).not.toHaveProperty("thresholdOccupancy");
    expect(telemetryFromLog(log().slice(0, 9))).toEqual([]);
  });
});

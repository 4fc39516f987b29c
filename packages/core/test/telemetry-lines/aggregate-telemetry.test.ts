import { aggregateTelemetry, parseTelemetryLines, type TelemetryLine } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { expectError } from "../support/expect-error.ts";

function line(
  sessionId: string,
  outcome: TelemetryLine["outcome"],
  before: number,
  after: number,
  extra: Partial<TelemetryLine> = {},
): TelemetryLine {
  return {
    v: 1,
    ts: "2025-01-01T00:00:00.000Z",
    sessionId,
    kind: "micro",
    outcome,
    tokensBefore: before,
    tokensAfter: after,
    delta: after - before,
    totals: { passes: 1, tokensSaved: before - after, failures: outcome === "failed" ? 1 : 0 },
    ...extra,
  };
}

// By hand: saved 300 + 500 + 0 + 0 + (−50) = 750; exchanges (400 + 600) / 2 = 500;
// durations sorted 10, 20, 30, 40 → mean 25, p50 = 2nd = 20, p95 = 4th = 40.
const LINES: TelemetryLine[] = [
  line("a", "absorbed", 1_000, 700, { exchangeTokens: 400, durationMs: 30 }),
  line("a", "absorbed", 1_200, 700, { exchangeTokens: 600, durationMs: 10 }),
  line("b", "skipped", 500, 500),
  line("b", "failed", 900, 900, { durationMs: 40 }),
  line("a", "defragged", 700, 750, { durationMs: 20 }),
];

describe("aggregateTelemetry", () => {
  it("adds up passes, the outcome mix, net tokens saved, exchange size and durations", () => {
    const report = aggregateTelemetry(LINES);
    expect(report).toEqual({
      passes: 5,
      sessions: 2,
      outcomes: { absorbed: 2, defragged: 1, compacted: 0, skipped: 1, failed: 1, noop: 0 },
      tokensSaved: 750,
      meanExchangeTokens: 500,
      durationMs: { mean: 25, p50: 20, p95: 40 },
    });
  });

  it("breaks the report down per session in first-seen order", () => {
    const { bySession } = aggregateTelemetry(LINES, { bySession: true });
    expect(bySession?.map((s) => [s.sessionId, s.passes, s.tokensSaved, s.meanExchangeTokens])).toEqual([
      ["a", 3, 750, 500],
      ["b", 2, 0, null],
    ]);
    // a: durations 10, 20, 30 → mean 20, p50 = 2nd = 20, p95 = 3rd = 30.
    expect(bySession?.[0]?.durationMs).toEqual({ mean: 20, p50: 20, p95: 30 });
    expect(bySession?.[1]?.durationMs).toEqual({ mean: 40, p50: 40, p95: 40 });
  });

  it("reports nothing measured as null on an empty set", () => {
    expect(aggregateTelemetry([])).toMatchObject({
      passes: 0,
      tokensSaved: 0,
      meanExchangeTokens: null,
      durationMs: null,
    });
  });
});

describe("parseTelemetryLines", () => {
  const text = [JSON.stringify(LINES[0]), "", '{"v":1', JSON.stringify({ ...LINES[1], note: "x" })].join("\n");

  it("names the first malformed line by number", () => {
    const error = expectError(() => parseTelemetryLines(text, { source: "t.jsonl" }), "VALIDATION");
    expect(error.message).toBe("malformed telemetry at line 3 of t.jsonl");
    expect(error.details).toMatchObject({ path: "t.jsonl" });
  });

  it("counts and skips malformed lines (unknown keys included) when asked", () => {
    expect(parseTelemetryLines(text, { skipInvalid: true })).toEqual({ lines: [LINES[0]], skipped: 2 });
  });
});

import { TelemetryLineSchema, type TelemetryPass, TelemetryTotals } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { expectError } from "../support/expect-error.ts";

const pass: TelemetryPass = {
  sessionId: "s1",
  kind: "micro",
  mode: "micro",
  outcome: "absorbed",
  tokensBefore: 1_000,
  tokensAfter: 700,
  exchangeTokens: 400,
  rollingSummaryTokens: 100,
  durationMs: 12,
  threshold: 2_000,
  ts: "2025-01-01T00:00:00.000Z",
};

describe("telemetry lines", () => {
  it("derive delta, occupancy and running totals from a pass", () => {
    const totals = new TelemetryTotals();
    const first = totals.add(pass);
    expect(first).toEqual({
      v: 1,
      ts: "2025-01-01T00:00:00.000Z",
      sessionId: "s1",
      kind: "micro",
      mode: "micro",
      outcome: "absorbed",
      tokensBefore: 1_000,
      tokensAfter: 700,
      delta: -300,
      exchangeTokens: 400,
      rollingSummaryTokens: 100,
      durationMs: 12,
      thresholdOccupancy: 0.35,
      totals: { passes: 1, tokensSaved: 300, failures: 0 },
    });
    const failed = totals.add({
      sessionId: "s1",
      kind: "batch",
      outcome: "failed",
      tokensBefore: 700,
      tokensAfter: 700,
    });
    expect(failed.totals).toEqual({ passes: 2, tokensSaved: 300, failures: 1 });
    expect(failed).not.toHaveProperty("thresholdOccupancy");
    expect(totals.add({ ...pass, sessionId: "s2" }).totals).toEqual({ passes: 1, tokensSaved: 300, failures: 0 });
    expect(totals.of("s1")).toEqual({ passes: 2, tokensSaved: 300, failures: 1 });
  });

  it("copy only the named fields of a pass, so extra fields never ride along", () => {
    const smuggled = { ...pass, summaryText: "SECRET-TRANSCRIPT", content: ["x"] } as TelemetryPass;
    const line = new TelemetryTotals().add(smuggled);
    expect(JSON.stringify(line)).not.toContain("SECRET-TRANSCRIPT");
    expect(Object.keys(line)).not.toContain("content");
  });

  it("reject unknown keys at the top level and in the totals", () => {
    const line = new TelemetryTotals().add(pass);
    expect(TelemetryLineSchema.safeParse(line).success).toBe(true);
    expect(TelemetryLineSchema.safeParse({ ...line, text: "hello" }).success).toBe(false);
    expect(TelemetryLineSchema.safeParse({ ...line, totals: { ...line.totals, last: "hi" } }).success).toBe(false);
    expect(TelemetryLineSchema.safeParse({ ...line, failureReason: "the model said: hi" }).success).toBe(false);
    expect(TelemetryLineSchema.safeParse({ ...line, ts: "yesterday, when the user said hi" }).success).toBe(false);
  });

  it("refuse impossible numbers without counting the pass", () => {
    const totals = new TelemetryTotals();
    expectError(() => totals.add({ ...pass, tokensBefore: -1 }), "VALIDATION");
    expect(totals.of("s1").passes).toBe(0);
  });
});

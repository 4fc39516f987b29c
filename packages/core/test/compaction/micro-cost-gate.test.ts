import { type LiveEntry, type MicroGateInput, microBatchGate } from "@palimpsest/core";
import { ANTHROPIC_PROFILE, LOCAL_PROFILE } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import { callTools, live, output, system } from "./view-builders.ts";

/** `turns` exchanges of about `perTurn` tokens each: a user request, a tool call and its result. */
function view(turns: number, perTurn: number): LiveEntry[] {
  const entries = [live(system("sys"), 500)];
  for (let t = 0; t < turns; t++) {
    entries.push(live({ id: `u${t}`, role: "user", content: [{ type: "text", text: `step ${t}` }] }, perTurn * 0.1));
    entries.push(live(callTools(`a${t}`, [[`c${t}`, "shell"]]), perTurn * 0.1));
    entries.push(live(output(`r${t}`, `c${t}`, `result ${t}`), perTurn * 0.8));
  }
  return entries;
}

function gateInput(entries: LiveEntry[], overrides: Partial<MicroGateInput> = {}): MicroGateInput {
  return {
    view: entries,
    liveTokens: entries.reduce((n, e) => n + e.tokens, 0),
    contextWindow: 200_000,
    maxOutputTokens: 50_000,
    profile: ANTHROPIC_PROFILE,
    tailTokens: 10_000,
    batchCompactions: 0,
    ...overrides,
  };
}

const MINUTE = 60_000;

describe("the micro batch gate", () => {
  it("given a warm cache and a small backlog, then it waits: one rewrite costs more than carrying the backlog", () => {
    const gate = microBatchGate(gateInput(view(8, 2_000), { nowMs: 2 * MINUTE, previousRequestMs: MINUTE }));
    expect(gate.backlogTokens).toBeGreaterThan(0);
    expect(gate.cold).toBe(false);
    expect(gate.due).toBe(false);
    expect(gate.waitCostPerTurn).toBeLessThan(gate.compactCostPerTurn);
  });

  it("given the same backlog after an idle gap past the TTL, then a batch is due: the prompt is written anyway", () => {
    const gate = microBatchGate(gateInput(view(8, 2_000), { nowMs: 30 * MINUTE, previousRequestMs: MINUTE }));
    expect(gate.cold).toBe(true);
    expect(gate.due).toBe(true);
  });

  it("given a large warm backlog, then a batch is due once carrying it costs more than its rewrite per turn", () => {
    const gate = microBatchGate(gateInput(view(40, 2_000)));
    expect(gate.due).toBe(true);
    expect(gate.waitCostPerTurn).toBeGreaterThanOrEqual(gate.compactCostPerTurn);
  });

  it("given no prompt cache, then every pass is due, and nothing is due without a backlog", () => {
    expect(microBatchGate(gateInput(view(8, 2_000), { profile: LOCAL_PROFILE })).due).toBe(true);
    expect(microBatchGate(gateInput(view(1, 2_000))).due).toBe(false);
  });
});

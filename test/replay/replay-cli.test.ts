import { describe, expect, it } from "vitest";
import { runPalimpsest } from "../cli/harness.ts";

const KEYS = [
  "policy",
  "turns",
  "compressionEventsPer100Turns",
  "avgTurnsBetweenCompressions",
  "auxSummaryCalls",
  "avgTokensReclaimedPerEvent",
  "totalPromptPlusAuxTokens",
  "earliestChangedIndex",
  "pruneOnlyToFullRatio",
  "cacheBreaks",
  "estimatedCost",
];

describe("palimpsest replay", () => {
  it("compares none, summary and prune-first on the demo session as one JSON object per policy", async () => {
    // a 16,000 window: max output 4,000, threshold 10,200 (85% of 12,000, where the 64K floor binds)
    const result = await runPalimpsest([
      "replay",
      "examples/demo-session.jsonl",
      "--compare",
      "none,summary,prune-first",
      "--context-window",
      "16000",
      "--json",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => r.policy)).toEqual(["none", "summary", "prune-first"]);
    for (const row of rows) for (const key of KEYS) expect(row).toHaveProperty(key);
    const [none, summary] = rows;
    expect(none?.earliestChangedIndex).toEqual([]);
    expect(none?.overflowTurns).toBeGreaterThan(0);
    expect(summary?.earliestChangedIndex).not.toEqual([]);
    expect(summary?.turns).toBe(none?.turns);
  });

  it("prints a table, and refuses an unknown policy as a usage error", async () => {
    const table = await runPalimpsest(["replay", "examples/demo-session.jsonl", "--context-window", "16000"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^policy\s+turns\s+events\/100/m);
    const bad = await runPalimpsest(["replay", "examples/demo-session.jsonl", "--compare", "summary,magic"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown policy magic");
  });

  it("--micro adds the micro metrics; alone it has no backstop, --policy and --compare name the backstops", async () => {
    const base = ["replay", "examples/demo-session.jsonl", "--context-window", "16000", "--json"];
    const policiesOf = async (...flags: string[]) => {
      const result = await runPalimpsest([...base, ...flags]);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as Record<string, unknown>[];
    };
    const [alone] = await policiesOf("--micro");
    expect(alone?.policy).toBe("micro");
    expect(alone?.threshold).toBeNull();
    for (const key of ["microPasses", "microTokensSavedTotal", "breakEvenPass", "eventsByKind", "cacheBreaksPerTurn"]) {
      expect(alone).toHaveProperty(key);
    }
    expect(alone?.microPasses).toBeGreaterThan(0);
    expect((await policiesOf("--micro", "--policy", "summary")).map((r) => r.policy)).toEqual(["micro+summary"]);
    const compared = await policiesOf("--compare", "none,prune-first", "--micro");
    expect(compared.map((r) => r.policy)).toEqual(["micro", "micro+prune-first"]);
    expect((await policiesOf("--compare", "summary,micro+summary")).map((r) => r.policy)).toEqual([
      "summary",
      "micro+summary",
    ]);
  });

  it("--precompact adds hits, misses by reason and each batch compaction's sync ms to --json and a line to the table", async () => {
    const base = ["replay", "examples/demo-session.jsonl", "--context-window", "16000", "--compare", "none,summary"];
    const result = await runPalimpsest([...base, "--precompact", "--json"]);
    expect(result.code).toBe(0);
    const [none, summary] = JSON.parse(result.stdout) as Record<string, unknown>[];
    for (const key of [
      "precompactHits",
      "precompactMisses",
      "syncCompactionMs",
      "precompactSavedMs",
      "precompactWastedMs",
    ]) {
      expect(summary).toHaveProperty(key);
    }
    expect(none).toMatchObject({ precompact: false, precompactHits: 0, syncCompactionMs: [] });
    expect(summary?.precompact).toBe(true);
    const sync = summary?.syncCompactionMs as { ms: number; hit: boolean }[];
    const misses = Object.values(summary?.precompactMisses as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(sync.length).toBe((summary?.precompactHits as number) + misses);
    expect(sync.filter((s) => s.hit)).toHaveLength(summary?.precompactHits as number);
    const table = await runPalimpsest([...base, "--precompact"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/summary precompact: \d+ hits, misses /);
  });
});

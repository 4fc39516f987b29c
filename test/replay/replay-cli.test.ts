import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FIDELITY_KINDS, type FidelitySummary } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { runPalimpsest } from "../cli/harness.ts";
import { HAVE_TRANSCRIPTS, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";

/** Every share of a fidelity summary is in [0, 1] (or null) and kept never exceeds removed. */
function expectShares(f: FidelitySummary): void {
  expect(f.meanRecall).toBeGreaterThanOrEqual(0);
  expect(f.meanRecall).toBeLessThanOrEqual(1);
  for (const kind of FIDELITY_KINDS) {
    for (const share of [f.meanRecallByKind[kind], f.keptRatio[kind]]) {
      if (share === null) continue;
      expect(share).toBeGreaterThanOrEqual(0);
      expect(share).toBeLessThanOrEqual(1);
    }
    expect(f.kept[kind]).toBeLessThanOrEqual(f.removed[kind]);
  }
}

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

  it("--json has fidelity per policy: shares in [0, 1], recall 1 without compaction, each compaction's keep", async () => {
    const result = await runPalimpsest([
      "replay",
      "examples/demo-session.jsonl",
      "--compare",
      "none,summary,micro",
      "--context-window",
      "16000",
      "--json",
    ]);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as {
      fidelity: FidelitySummary;
      turns: number;
      compactions: { fidelity: { removed: Record<string, number> } }[];
    }[];
    for (const row of rows) {
      expectShares(row.fidelity);
      expect(row.fidelity.requests).toBe(row.turns);
      expect(row.fidelity.compactions).toBe(row.compactions.length);
      for (const c of row.compactions) expect(c.fidelity.removed).toHaveProperty("filePaths");
    }
    const [none, summary] = rows;
    expect(none?.fidelity.meanRecall).toBe(1);
    expect(none?.fidelity.compactions).toBe(0);
    expect(none?.fidelity.held.filePaths).toBeGreaterThan(0);
    // the summary drops something of what it summarized, and writes less than it removed
    expect(summary?.fidelity.meanRecall).toBeLessThan(1);
    expect(summary?.fidelity.sizeRatio).toBeLessThan(1);
  });

  it("shows fidelity in the text table and the HTML report", async () => {
    const base = ["replay", "examples/demo-session.jsonl", "--compare", "none,summary", "--context-window", "16000"];
    const text = await runPalimpsest(base);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^policy\s+mean recall\s+recall requests/m);
    expect(text.stdout).toMatch(/^none\s+100%/m);
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-fidelity-"));
    try {
      const html = join(dir, "r.html");
      expect((await runPalimpsest([...base, "--html", html])).code).toBe(0);
      const page = await readFile(html, "utf8");
      expect(page).toContain("<h2>Fidelity</h2>");
      expect(page).toMatch(/<th scope="col">kept paths<\/th>/);
      expect(page).toMatch(/<tr><td>summary<\/td><td>\d+%<\/td>/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("eval prints one policy's fidelity; --json has it with each compaction, and no source row without one", async () => {
    const base = ["eval", "examples/demo-session.jsonl", "--context-window", "16000"];
    const text = await runPalimpsest(base);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^summary\s+\d+%/m);
    expect(text.stdout).not.toContain("source's own");
    const json = await runPalimpsest([...base, "--policy", "none", "--json"]);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout) as {
      policy: string;
      fidelity: FidelitySummary;
      source: unknown;
      compactions: unknown[];
    };
    expect(out.policy).toBe("none");
    expect(out.fidelity.meanRecall).toBe(1);
    expect(out.source).toBeNull();
    expect(out.compactions).toEqual([]);
    const bad = await runPalimpsest(["eval", "examples/demo-session.jsonl", "--policy", "magic"]);
    expect(bad.code).toBe(2);
  });

  it.skipIf(!HAVE_TRANSCRIPTS)(
    "eval of a Claude Code transcript measures its own compaction beside the policy's",
    async () => {
      const file = join(TRANSCRIPTS_DIR, "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl");
      const result = await runPalimpsest(["eval", file, "--main-only", "--context-window", "80000", "--json"]);
      expect(result.code).toBe(0);
      const out = JSON.parse(result.stdout) as {
        fidelity: FidelitySummary;
        source: FidelitySummary;
        compactions: { by: string; kind: string }[];
      };
      expectShares(out.fidelity);
      expectShares(out.source);
      expect(out.fidelity.compactions).toBeGreaterThan(0);
      expect(out.source.compactions).toBe(1);
      expect(out.compactions.filter((c) => c.by === "source (claude-code)").map((c) => c.kind)).toEqual(["auto"]);
      // Claude Code writes a few percent of what it drops (its own figure, measured the same way)
      expect(out.source.sizeRatio).toBeLessThan(0.1);
    },
  );

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

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
      compactions: { fidelity: { removed: Record<string, number>; kept: Record<string, number> } }[];
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
    // the recall shows what the summaries dropped (below 1 exactly when one kept less than it removed:
    // on the demo they keep it all), and they write less than they removed
    const dropped = (summary?.compactions ?? []).some((c) =>
      Object.entries(c.fidelity.removed).some(([kind, n]) => (c.fidelity.kept[kind] ?? 0) < n),
    );
    expect(summary?.fidelity.compactions).toBeGreaterThan(0);
    expect((summary?.fidelity.meanRecall ?? 1) < 1).toBe(dropped);
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

describe("palimpsest replay: the cache model's flags", () => {
  // Anthropic's rules and lifetimes (5m, 1h): the demo is an OpenAI transcript, which alone would replay under openai.
  const demo = [
    "replay",
    "examples/demo-session.jsonl",
    "--compare",
    "none,summary",
    "--context-window",
    "16000",
    "--profile",
    "anthropic",
  ];

  it("--fixed-prefix-tokens and --cache-ttl stand in where the transcript has no usage; untimed is said", async () => {
    const json = await runPalimpsest([...demo, "--fixed-prefix-tokens", "3000", "--cache-ttl", "1h", "--json"]);
    expect(json.code).toBe(0);
    const [none] = JSON.parse(json.stdout) as {
      cacheModel: { fixedPrefixTokens: number; fixedPrefixSource: string; ttlSeconds: number; ttlSource: string }[];
      peakPromptTokens: number;
      floorCost: number;
    }[];
    expect(none?.cacheModel[0]).toMatchObject({
      fixedPrefixTokens: 3000,
      fixedPrefixSource: "flag",
      ttlSeconds: 3600,
      ttlSource: "flag",
      timed: false,
      budgetWindow: 13_000, // (16,000 − 3,000) ÷ 1
    });
    const plain = await runPalimpsest([...demo, "--json"]);
    const [bare, bareSummary] = JSON.parse(plain.stdout) as { peakPromptTokens: number; floorCost: number }[];
    expect(none?.peakPromptTokens).toBe((bare?.peakPromptTokens ?? 0) + 3000); // the prefix precedes every prompt
    // The floor is the same under every policy, and every request reads the prefix in it too.
    expect(bareSummary?.floorCost).toBe(bare?.floorCost);
    expect(none?.floorCost).toBeGreaterThan(bare?.floorCost ?? Number.POSITIVE_INFINITY);
    const text = await runPalimpsest([...demo, "--fixed-prefix-tokens", "3000"]);
    expect(text.stdout).toContain("fixed prefix 3000 (flag)");
    expect(text.stdout).toMatch(
      /^cost floor USD \d+\.\d\d: no policy that sends every message once whole goes below it/m,
    );
    expect(text.stdout).toContain("no timestamps in the transcript: no cache entry expires");
  });

  it("refuses a window the fixed prefix fills as a usage error, before replaying anything", async () => {
    const full = await runPalimpsest([...demo, "--fixed-prefix-tokens", "16000"]);
    expect(full.code).toBe(2);
    expect(full.stdout).toBe("");
    expect(full.stderr).toContain("error [VALIDATION] the context window (16000 tokens) is no larger than session");
    expect(full.stderr).toContain("contextWindow: must be larger than the fixed prefix (16000 tokens)");
    expect((await runPalimpsest([...demo, "--fixed-prefix-tokens", "15999"])).code).toBe(0);
  });

  it("--summarizer-model prices the summarizer's calls apart from the agent's requests", async () => {
    const cost = async (model: string): Promise<{ none: number; summary: number }> => {
      const out = await runPalimpsest([...demo, "--model", "claude-opus-4-6", "--summarizer-model", model, "--json"]);
      expect(out.code).toBe(0);
      const [none, summary] = JSON.parse(out.stdout) as { estimatedCost: number; models: unknown }[];
      expect(summary?.models).toEqual({ agent: "claude-opus-4-6", summarizer: model });
      return { none: none?.estimatedCost ?? 0, summary: summary?.estimatedCost ?? 0 };
    };
    const opus = await cost("claude-opus-4-6");
    const haiku = await cost("claude-haiku-4-5");
    expect(haiku.none).toBe(opus.none); // no summaries: the summarizer's model changes nothing
    expect(haiku.summary).toBeLessThan(opus.summary);
  });

  it("--summary-breakpoint replays the anthropic profile with a breakpoint on the last summary; a cache without breakpoints refuses it", async () => {
    const run = async (...flags: string[]) => {
      const result = await runPalimpsest([
        ...demo.map((arg) => (arg === "none,summary" ? "summary,cost-optimal" : arg)),
        ...flags,
        "--json",
      ]);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as { policy: string; estimatedCost: number; compressionEvents: number }[];
    };
    const [, plainOptimal] = await run();
    const [, markedOptimal] = await run("--summary-breakpoint");
    // The kept summaries' head is read from the cache after a compaction: cost-optimal pays less.
    expect(markedOptimal?.policy).toBe("cost-optimal");
    expect(markedOptimal?.estimatedCost).toBeLessThan(plainOptimal?.estimatedCost ?? 0);
    const openai = await runPalimpsest([...demo.slice(0, -1), "openai", "--summary-breakpoint"]);
    expect(openai.code).toBe(2);
    expect(openai.stderr).toContain("the openai profile's cache takes no breakpoints (anthropic's does)");
  });

  it("--summarizer-reads-conversation bills each summary as a request through the agent's cache; not with --summarizer-model", async () => {
    const run = async (...flags: string[]) => {
      const result = await runPalimpsest([...demo, ...flags, "--json"]);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as { policy: string; estimatedCost: number; auxInputTokens: number }[];
    };
    const [, plain] = await run();
    const [, reading] = await run("--summarizer-reads-conversation");
    expect(reading?.policy).toBe("summary");
    // It sends the whole prompt, not the span alone: more tokens, most of them read at a tenth of the price.
    expect(reading?.auxInputTokens).toBeGreaterThan(plain?.auxInputTokens ?? Number.POSITIVE_INFINITY);
    expect(reading?.estimatedCost).not.toBe(plain?.estimatedCost);
    const both = await runPalimpsest([
      ...demo,
      "--summarizer-reads-conversation",
      "--summarizer-model",
      "claude-haiku-4-5",
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("cannot be used with option '--summarizer-model");
  });

  it("bad values are usage errors naming what is allowed", async () => {
    const model = await runPalimpsest([...demo, "--model", "gpt-9"]);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain("unknown model gpt-9; known: claude-opus-4-6");
    const summarizer = await runPalimpsest([...demo, "--summarizer-model", "sonnet"]);
    expect(summarizer.code).toBe(2);
    expect(summarizer.stderr).toContain("unknown model sonnet");
    const ttl = await runPalimpsest([...demo, "--cache-ttl", "24h"]);
    expect(ttl.code).toBe(2);
    expect(ttl.stderr).toContain("not a lifetime of the anthropic profile (5m, 1h)");
    const unknownTtl = await runPalimpsest([...demo, "--cache-ttl", "forever"]);
    expect(unknownTtl.code).toBe(2);
    expect(unknownTtl.stderr).toContain("in-memory");
    const prefix = await runPalimpsest([...demo, "--fixed-prefix-tokens", "-5"]);
    expect(prefix.code).toBe(2);
    expect(prefix.stderr).toContain("whole number ≥ 0");
    for (const usd of ["-0.5", "lots", "Infinity"]) {
      const price = await runPalimpsest([...demo, "--lost-fact-usd", usd]);
      expect(price.code).toBe(2);
      expect(price.stderr).toContain("amount of US dollars, 0 or more");
    }
  });

  it.skipIf(!HAVE_TRANSCRIPTS)("on a Claude Code session says what it calibrated and compares the cost", async () => {
    const file = join(TRANSCRIPTS_DIR, "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl");
    const out = await runPalimpsest(["replay", file, "--compare", "none", "--main-only"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /tokens ×1\.\d{3} \(fitted on 71 requests\), fixed prefix \d+ \(usage, 17842 already cached\), prefix changed before 1 request \(usage\), TTL 1 h \(usage\)/,
    );
    expect(out.stdout).toMatch(/cost USD\s+estimated \d+\.\d\d\s+real \d+\.\d\d\s+ratio (0\.9\d|1\.0\d)/);
    expect(out.stdout).not.toContain("no timestamps");
  });

  it.skipIf(!HAVE_TRANSCRIPTS)("the HTML report shows the calibration per session and the cost row", async () => {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-cache-html-"));
    try {
      const file = join(
        TRANSCRIPTS_DIR,
        "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl",
      );
      const out = join(dir, "r.html");
      const result = await runPalimpsest(["replay", file, "--compare", "none", "--html", out]);
      expect(result.code).toBe(0);
      const html = await readFile(out, "utf8");
      expect(html).toContain("Cache model per session");
      expect(html).toContain("cost USD (output included)");
      expect(html).toContain("a881341");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

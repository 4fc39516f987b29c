import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSource, replaySession, sessionCacheModel } from "@palimpsest/eval/testing";
import { type CompactOutcome, openPalimpsest, type Palimpsest, sessionThreshold } from "@palimpsest/runtime";
import { profileNamed } from "@palimpsest/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPalimpsest } from "../cli/harness.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { HAVE_TRANSCRIPTS, realSessions } from "../support/real-transcripts.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import { replayProblems } from "./replay-check.ts";

// A long Claude Code session with timestamps on every line (its usage shows 1-hour cache writes).
const FILE = "claude-code/spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl";
const RUNS = [
  ["anthropic", 200_000],
  ["anthropic", 64_000],
  ["openai", 64_000],
] as const;

describe.skipIf(!HAVE_TRANSCRIPTS)("cost-optimal replayed on a real transcript", () => {
  let runtime: Palimpsest;
  beforeAll(async () => {
    runtime = await openPalimpsest({ url: ":memory:" });
  });
  afterAll(() => runtime.close());

  it("never overflows, compacts no later than summary, and keeps every invariant after every compaction", {
    timeout: 240_000,
  }, async () => {
    const [source] = realSessions(FILE).filter((s) => s.parentExternalId === undefined);
    if (source === undefined) throw new Error(`${FILE} has no main session`);
    for (const [name, contextWindow] of RUNS) {
      const profile = profileNamed(name);
      const problems: string[] = [];
      let mostSummaries = 0;
      const optimal = await replaySession(runtime, source, {
        policy: "cost-optimal",
        profile,
        contextWindow,
        onCompaction: async (session, c) => {
          for (const p of await replayProblems(runtime, session, "ordered"))
            problems.push(`request ${c.requestIndex}: ${p}`);
          const live = session.state.live.filter((e) => e.placedBy?.kind === "summary").length;
          mostSummaries = Math.max(mostSummaries, live);
        },
      });
      const summary = await replaySession(runtime, source, { policy: "summary", profile, contextWindow });
      expect(problems).toEqual([]);
      // Some compactions kept the earlier summaries as they were rather than folding them in.
      expect(mostSummaries).toBeGreaterThan(1);
      expect(optimal.summaryFailures).toBe(0);
      expect(optimal.overflowTurns).toBe(0);
      expect(optimal.compactions.length).toBeGreaterThanOrEqual(summary.compactions.length);
      // It compacts at the latest where summary does: its first compaction comes no later.
      expect(optimal.compactions[0]?.requestIndex).toBeLessThanOrEqual(summary.compactions[0]?.requestIndex ?? 0);
      // The floor is the same under both, and neither's requests cost less than it.
      const requestsCost = (r: typeof optimal) => r.estimates.reduce((sum, e) => sum + e.cost, 0);
      expect(optimal.floorCost).toBeGreaterThan(0);
      expect(optimal.floorCost).toBeCloseTo(summary.floorCost, 9);
      expect(requestsCost(optimal)).toBeGreaterThan(optimal.floorCost);
      expect(requestsCost(summary)).toBeGreaterThan(summary.floorCost);
    }
  });

  it("with micro passes, batches them by cost: the batches keep every invariant and never overflow", {
    timeout: 240_000,
  }, async () => {
    const [source] = realSessions(FILE).filter((s) => s.parentExternalId === undefined);
    if (source === undefined) throw new Error(`${FILE} has no main session`);
    const problems: string[] = [];
    // Priced as an OpenAI model (reads at a quarter of input, writes at input), where a batch can pay.
    const profile = profileNamed("openai");
    const reading = await readSource(source);
    const cacheModel = sessionCacheModel(source, reading, profile, { model: "gpt-4.1" });
    const replay = await replaySession(runtime, source, {
      policy: "cost-optimal",
      micro: {},
      profile,
      contextWindow: 200_000,
      source: { reading, cacheModel },
      onCompaction: async (session, c) => {
        for (const p of await replayProblems(runtime, session, "ordered"))
          problems.push(`request ${c.requestIndex}: ${p}`);
      },
    });
    expect(problems).toEqual([]);
    expect(replay.overflowTurns).toBe(0);
    const batches = replay.compactions.filter((c) => c.kind === "micro");
    expect(batches.length).toBeGreaterThan(0);
    // A batch is one rewrite for many exchanges: it reclaims more than one exchange's worth.
    expect(Math.max(...batches.map((c) => c.tokensBefore - c.tokensAfter))).toBeGreaterThan(1_000);
  });
});

describe("cost-optimal in the CLI", () => {
  it("is a replay run beside the others and a compact --policy choice", { timeout: 120_000 }, async () => {
    const replay = await runPalimpsest([
      "replay",
      "examples/demo-session.jsonl",
      "--compare",
      "none,summary,cost-optimal",
      "--context-window",
      "16000",
      "--json",
    ]);
    expect(replay.code).toBe(0);
    const rows = JSON.parse(replay.stdout) as { policy: string; overflowTurns: number; compressionEvents: number }[];
    expect(rows.map((r) => r.policy)).toEqual(["none", "summary", "cost-optimal"]);
    expect(rows[2]?.overflowTurns).toBe(0);
    expect(rows[2]?.compressionEvents).toBeGreaterThan(0);
    const help = await runPalimpsest(["compact", "--help"]);
    expect(help.stdout).toContain("cost-optimal");
  });
});

describe("cost-optimal as the runtime's policy", () => {
  it("given auto compaction with cost-optimal, then completed turns are timed and it compacts before the summary threshold", {
    timeout: 60_000,
  }, async () => {
    const outcomes: CompactOutcome[] = [];
    const runtime = await openPalimpsest({
      url: ":memory:",
      compaction: { policy: "cost-optimal", auto: true, contextWindow: 200_000 },
      onAutoCompaction: (outcome) => {
        outcomes.push(outcome);
      },
    });
    try {
      const session = await runtime.startSession({ contextWindow: 200_000, profile: "openai" });
      const threshold = sessionThreshold(session);
      for (let n = 0; n < 40 && outcomes.length === 0; n++) {
        const words = Array.from({ length: 1_500 }, (_, i) => `w${(i * 7 + n) % 97}`).join(" ");
        await session.append(
          [
            { id: `u${n}`, role: "user", content: `step ${n}: run the build` },
            {
              id: `a${n}`,
              role: "assistant",
              content: "running",
              toolCalls: [{ id: `c${n}`, name: "shell", arguments: "{}" }],
            },
            { id: `t${n}`, role: "tool", toolCallId: `c${n}`, content: words },
            { id: `r${n}`, role: "assistant", content: `step ${n} done` },
          ],
          { turnId: `turn${n}` },
        );
        await session.completeTurn(`turn${n}`);
        expect(session.state.lastTurnAt).toBeTypeOf("number");
      }
      const [first] = outcomes;
      expect(first?.status).toBe("compacted");
      if (first?.status !== "compacted") return;
      expect(first.plan.tokensBefore).toBeLessThan(threshold);
      expect(first.plan.reason).toContain("under the threshold");
    } finally {
      await runtime.close();
    }
  });
});

const server = postgresServer();

describe.skipIf(!HAVE_TRANSCRIPTS)("cost-optimal replayed into a SQLite file and into PostgreSQL", () => {
  const engines = [
    {
      name: "sqlite",
      open: async () => {
        const dir = await mkdtemp(join(tmpdir(), "palimpsest-co-"));
        return { url: join(dir, "replay.db"), drop: () => rm(dir, { recursive: true, force: true }) };
      },
    },
    ...("url" in server ? [{ name: "postgres", open: () => createScratchDatabase(server.url, "cost_optimal") }] : []),
  ];
  for (const engine of engines) {
    it(`keeps every invariant after every compaction and resumes the same view (${engine.name})`, {
      timeout: 240_000,
    }, async () => {
      const [source] = realSessions(FILE).filter((s) => s.parentExternalId === undefined);
      if (source === undefined) throw new Error(`${FILE} has no main session`);
      const database = await engine.open();
      const stored = await openPalimpsest({ url: database.url });
      try {
        const problems: string[] = [];
        const replay = await replaySession(stored, source, {
          policy: "cost-optimal",
          profile: profileNamed("anthropic"),
          contextWindow: 64_000,
          onCompaction: async (session, c) => {
            for (const p of await replayProblems(stored, session, "ordered"))
              problems.push(`request ${c.requestIndex}: ${p}`);
          },
        });
        expect(replay.compactions.length).toBeGreaterThan(5);
        expect(problems).toEqual([]);
        expect(replay.overflowTurns).toBe(0);
      } finally {
        await stored.close();
        await database.drop();
      }
    });
  }
});

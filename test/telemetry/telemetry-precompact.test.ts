import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  aggregateTelemetry,
  parseTelemetryLines,
  type TelemetryLine,
  TelemetryLineSchema,
  telemetryFromLog,
} from "@palimpsest/core";
import {
  callbackSink,
  type Palimpsest,
  PrecompactionScheduler,
  sessionThreshold,
  TelemetryRecorder,
} from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, runPalimpsest, sqliteCliDatabase } from "../cli/harness.ts";
import { candidateStore, growTo, thresholds, WINDOW } from "../precompact/precompact-fixtures.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

type Extra = Partial<Pick<TelemetryLine, "precompact" | "precompactMiss" | "candidateAgeMs" | "savedMs" | "wastedMs">>;

function line(sessionId: string, extra: Extra = {}): TelemetryLine {
  return {
    v: 1,
    ts: "2025-01-01T00:00:00.000Z",
    sessionId,
    kind: "batch",
    mode: extra.precompact === "hit" ? "precompact" : "summary",
    outcome: "compacted",
    tokensBefore: 9_000,
    tokensAfter: 3_000,
    delta: -6_000,
    durationMs: 12,
    ...extra,
    totals: { passes: 1, tokensSaved: 6_000, failures: 0 },
  };
}

const LINES: TelemetryLine[] = [
  line("a", { precompact: "hit", candidateAgeMs: 4_000, savedMs: 2_500 }),
  line("a", { precompact: "hit", candidateAgeMs: 1_000, savedMs: 1_500.25 }),
  line("b", { precompact: "miss", precompactMiss: "prefix-changed", wastedMs: 1_800 }),
  line("b", { precompact: "miss", precompactMiss: "no-candidate" }),
  line("b", { precompact: "miss", precompactMiss: "prefix-changed", wastedMs: 200 }),
  line("c"),
];

describe("pre-compaction fields of a telemetry line", () => {
  it("are optional (older lines still parse) and closed: reason classes only, no detail text", () => {
    expect(TelemetryLineSchema.safeParse(line("x")).success).toBe(true);
    expect(TelemetryLineSchema.safeParse(LINES[0]).success).toBe(true);
    expect(TelemetryLineSchema.safeParse({ ...line("x"), precompact: "maybe" }).success).toBe(false);
    expect(TelemetryLineSchema.safeParse({ ...line("x"), precompactMiss: "the prefix of 'secret'" }).success).toBe(
      false,
    );
    expect(TelemetryLineSchema.safeParse({ ...line("x"), precompactDetail: "prefix hash 1 ≠ 2" }).success).toBe(false);
    expect(TelemetryLineSchema.safeParse({ ...line("x"), candidateAgeMs: -1 }).success).toBe(false);
  });

  it("aggregate to hits, misses by reason, saved and wasted ms and candidate age, overall and per session", () => {
    const report = aggregateTelemetry(LINES, { bySession: true });
    expect(report.precompact).toEqual({
      hits: 2,
      misses: { "prefix-changed": 2, "no-candidate": 1 },
      savedMs: 4_000.25,
      wastedMs: 2_000,
      candidateAgeMs: { mean: 2_500, max: 4_000 },
    });
    const [a, b, c] = report.bySession ?? [];
    expect(a?.precompact).toMatchObject({ hits: 2, misses: {}, wastedMs: 0 });
    expect(b?.precompact).toMatchObject({ hits: 0, misses: { "prefix-changed": 2, "no-candidate": 1 }, savedMs: 0 });
    expect(b?.precompact?.candidateAgeMs).toBeNull();
    expect(c?.precompact).toBeUndefined();
    expect(aggregateTelemetry([line("c")])).not.toHaveProperty("precompact");
  });
});

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`pre-compaction in the recorder's lines (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("a hit carries its age and time saved, a miss its reason class; the log projection marks the hit", async () => {
      const lines: TelemetryLine[] = [];
      const recorder = new TelemetryRecorder({ sink: callbackSink((l) => void lines.push(l)) });
      const precompaction = new PrecompactionScheduler({
        candidates: candidateStore(runtime),
        compaction: { policy: "summary" },
        precompact: { debounceMs: 0 },
      });
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const next = await growTo(session, thresholds(session).soft);
      precompaction.onTurnCompleted(session);
      await precompaction.idle();
      await growTo(session, thresholds(session).hard, next);
      const threshold = sessionThreshold(session);
      const hit = await precompaction.compact(session, { measureCold: true });
      expect(hit.precompact?.type).toBe("hit");
      recorder.recordCompaction(session, hit, { threshold });

      const cold = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await growTo(cold, thresholds(cold).hard);
      const miss = await precompaction.compact(cold);
      recorder.recordCompaction(cold, miss); // the miss carries its wasted ms itself
      precompaction.dispose();

      expect(lines[0]).toMatchObject({
        mode: "precompact",
        outcome: "compacted",
        precompact: "hit",
        candidateAgeMs: expect.any(Number),
        savedMs: expect.any(Number),
      });
      expect(lines[0]).not.toHaveProperty("precompactMiss");
      expect(lines[1]).toMatchObject({
        mode: "summary",
        precompact: "miss",
        precompactMiss: "no-candidate",
        wastedMs: 0,
      });
      for (const l of lines) expect(TelemetryLineSchema.parse(JSON.parse(JSON.stringify(l)))).toEqual(l);
      expect(JSON.stringify(lines)).not.toContain("no candidate stored"); // the miss's detail text stays out

      const projected = telemetryFromLog(await runtime.store.readStream(session.id));
      expect(projected.at(-1)).toMatchObject({ mode: "precompact", precompact: "hit" });
    });
  });
}

describe("palimpsest report with pre-compaction lines", () => {
  let db: CliDatabase;
  beforeAll(async () => {
    db = await sqliteCliDatabase();
  });
  afterAll(() => db.dispose());

  it("shows hits, misses by reason, saved and wasted ms when present", { timeout: 120_000 }, async () => {
    const file = join(db.dir, "precompact.jsonl");
    await writeFile(file, `${LINES.map((l) => JSON.stringify(l)).join("\n")}\n`);
    expect(parseTelemetryLines(await readFile(file, "utf8")).lines).toEqual(LINES);
    const json = await runPalimpsest(["--db", db.url, "report", file, "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      passes: 6,
      precompact: { hits: 2, misses: { "prefix-changed": 2, "no-candidate": 1 }, savedMs: 4_000.25, wastedMs: 2_000 },
    });
    const text = await runPalimpsest(["--db", db.url, "report", file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/precompact hits\s+│?\s*2/);
    expect(text.stdout).toContain("prefix-changed 2, no-candidate 1");
    expect(text.stdout).toContain("4000.25");
    expect(text.stdout).toContain("2500 / 4000");
  });
});

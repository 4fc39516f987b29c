import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TelemetryLine } from "@palimpsest/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, jsonError, runPalimpsest, sqliteCliDatabase } from "../cli/harness.ts";

function line(sessionId: string, outcome: TelemetryLine["outcome"], before: number, after: number, durationMs: number) {
  return {
    v: 1,
    ts: "2025-01-01T00:00:00.000Z",
    sessionId,
    kind: "batch",
    mode: "summary",
    outcome,
    tokensBefore: before,
    tokensAfter: after,
    delta: after - before,
    durationMs,
    totals: { passes: 1, tokensSaved: before - after, failures: outcome === "failed" ? 1 : 0 },
  };
}

describe("palimpsest report", () => {
  let db: CliDatabase;
  beforeAll(async () => {
    db = await sqliteCliDatabase();
  });
  afterAll(() => db.dispose());
  const cli = (...args: string[]) => runPalimpsest(["--db", db.url, ...args]);

  it("aggregates a telemetry file and a session's log, and names a malformed line", { timeout: 120_000 }, async () => {
    const file = join(db.dir, "telemetry.jsonl");
    const lines = [line("a", "compacted", 9_000, 3_000, 40), line("b", "failed", 500, 500, 10)];
    await writeFile(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const fromFile = await cli("report", file, "--json");
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({
      passes: 2,
      sessions: 2,
      outcomes: { compacted: 1, failed: 1 },
      tokensSaved: 6_000,
      durationMs: { mean: 25, p50: 10, p95: 40 },
      skippedLines: 0,
    });

    const imported = JSON.parse((await cli("--json", "import", "examples/demo-session.jsonl")).stdout) as {
      sessionId: string;
    }[];
    const id = imported[0]?.sessionId ?? "";
    expect((await cli("compact", id, "--policy", "summary", "--force", "--context-window", "16000")).code).toBe(0);
    const bySession = await cli("report", id.slice(0, 8), "--by-session");
    expect(bySession.code).toBe(0);
    expect(bySession.stdout).toContain("compacted 1");
    expect(bySession.stdout).toContain(id);

    const bad = join(db.dir, "bad.jsonl");
    await writeFile(bad, `${JSON.stringify(lines[0])}\n${JSON.stringify({ ...lines[1], text: "hi" })}\n`);
    const malformed = await cli("--json", "report", bad);
    expect(malformed.code).toBe(2);
    expect(jsonError(malformed)).toMatchObject({
      code: "VALIDATION",
      message: `malformed telemetry at line 2 of ${bad}`,
    });
    const skipped = await cli("--json", "report", bad, "--skip-invalid");
    expect(JSON.parse(skipped.stdout)).toMatchObject({ passes: 1, skippedLines: 1 });
  });
});

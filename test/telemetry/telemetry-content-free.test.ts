import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Summarizer,
  SummarizerError,
  type TelemetryLine,
  TelemetryLineSchema,
  type TelemetryPass,
  telemetryFromLog,
} from "@palimpsest/core";
import {
  callbackSink,
  compact,
  fileJsonSink,
  type Palimpsest,
  type Session,
  sessionThreshold,
  TelemetryRecorder,
} from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";

const WINDOW = 64_000;
const MARKERS: string[] = [];

/** A unique string that must never reach telemetry; remembered for the final check. */
function marker(tag: string): string {
  const m = `QX${tag.toUpperCase()}ZZ${MARKERS.length}WQ`;
  MARKERS.push(m);
  return m;
}

/** Appends `count` exchanges of ~`tokens` tool output each, every message carrying a marker. */
async function grow(session: Session, from: number, count: number, tool = "shell"): Promise<void> {
  const words = ["alpha", "build", "cache", "delta", "error:", "src/app.ts", "passed", "failed"];
  for (let n = from; n < from + count; n++) {
    const out = Array.from({ length: 1_500 }, (_, i) => words[(i * 7 + n) % words.length]).join(" ");
    await session.append(
      [
        { id: `u${n}`, role: "user", content: `step ${n} ${marker("user")}` },
        {
          id: `a${n}`,
          role: "assistant",
          content: `running ${marker("assistant")}`,
          toolCalls: [{ id: `c${n}`, name: tool, arguments: `{"note":"${marker("args")}"}` }],
        },
        { id: `t${n}`, role: "tool", toolCallId: `c${n}`, content: `${marker("tool")} ${out}` },
        { id: `r${n}`, role: "assistant", content: `done ${marker("reply")}` },
      ],
      { turnId: `turn${n}` },
    );
  }
}

const failing: Summarizer = {
  model: "failing",
  promptVersion: "v1",
  summarize: async () => {
    throw new SummarizerError("timeout", "test", `timed out on ${marker("error")}`);
  },
};

const echo: Summarizer = {
  model: "echo",
  promptVersion: "v1",
  summarize: async () => ({ text: `the user asked about ${marker("summary")}` }),
};

const withoutTotals = ({ totals: _, ...rest }: TelemetryLine) => rest;

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`telemetry of real compactions (${backend.name})`, () => {
    let runtime: Palimpsest;
    let dir: string;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
      dir = await mkdtemp(join(tmpdir(), "palimpsest-telemetry-"));
    });
    afterAll(async () => {
      await backend.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    it("writes content-free lines whose last totals sum the run, matching the log projection", async () => {
      const file = join(dir, "telemetry.jsonl");
      const firstMarker = MARKERS.length; // markers are shared by the backends' runs: this run's start here
      const recorder = new TelemetryRecorder({ sink: fileJsonSink(file) });
      const summary = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const threshold = sessionThreshold(summary);
      const run = async (session: Session, options: Parameters<typeof compact>[1]) =>
        recorder.recordCompaction(session, await compact(session, options), { threshold: sessionThreshold(session) });

      await grow(summary, 0, 10);
      expect((await run(summary, { policy: "summary" }))?.outcome).toBe("skipped");
      await grow(summary, 10, 30);
      expect((await run(summary, { policy: "summary", summarizer: failing }))?.outcome).toBe("failed");
      expect((await run(summary, { policy: "summary", summarizer: echo, force: true }))?.outcome).toBe("compacted");

      const pruned = await runtime.startSession({ contextWindow: WINDOW, profile: "anthropic" });
      await grow(pruned, 0, 40);
      expect((await run(pruned, { policy: "prune-first" }))?.mode).toBe("prune");

      // A micro pass handed over with extra fields: only the named ones are copied.
      const micro = { sessionId: "micro-sim", kind: "micro", mode: "micro", outcome: "absorbed", tokensBefore: 900 };
      const smuggled = { ...micro, tokensAfter: 600, exchangeTokens: 350, rollingSummaryTokens: 50, text: marker("m") };
      recorder.record(smuggled as TelemetryPass);

      const text = await readFile(file, "utf8");
      const lines = text
        .trimEnd()
        .split("\n")
        .map((l) => TelemetryLineSchema.parse(JSON.parse(l)));
      expect(lines).toHaveLength(5);
      expect(lines[1]).toMatchObject({ failureReason: "timeout", delta: 0 });
      expect(lines[2]?.thresholdOccupancy).toBe(Math.round(((lines[2]?.tokensAfter ?? 0) / threshold) * 1e4) / 1e4);

      const projected: TelemetryLine[] = [];
      for (const session of [summary, pruned]) {
        const own = lines.filter((l) => l.sessionId === session.id);
        const last = own.at(-1);
        expect(last?.totals).toEqual({
          passes: own.length,
          tokensSaved: own.reduce((n, l) => n - l.delta, 0),
          failures: own.filter((l) => l.outcome === "failed").length,
        });
        const fromLog = telemetryFromLog(await runtime.store.readStream(session.id), {
          threshold: sessionThreshold(session),
        });
        // Skipped passes never reach the log: the projection agrees on every other pass.
        expect(fromLog.map(withoutTotals)).toEqual(own.filter((l) => l.outcome !== "skipped").map(withoutTotals));
        expect(fromLog.at(-1)?.totals).toMatchObject({
          tokensSaved: last?.totals.tokensSaved,
          failures: last?.totals.failures,
        });
        projected.push(...fromLog);
      }

      const everything = `${text}\n${JSON.stringify(projected)}`;
      expect(MARKERS.length).toBeGreaterThan(300);
      for (const m of MARKERS) expect(everything).not.toContain(m);
      // The markers did reach the log (so the check above is not vacuous).
      expect(JSON.stringify(await runtime.store.readStream(summary.id))).toContain(MARKERS[firstMarker]);
    });

    it("never throws into the caller when the sink fails, and says so once on stderr", async () => {
      const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      try {
        const recorder = new TelemetryRecorder({
          sink: callbackSink(() => {
            throw new Error("disk full");
          }),
        });
        const pass: TelemetryPass = { sessionId: "s", kind: "micro", outcome: "noop", tokensBefore: 5, tokensAfter: 5 };
        expect(recorder.record(pass)?.totals.passes).toBe(1);
        expect(recorder.record(pass)?.totals.passes).toBe(2);
        expect(recorder.record({ ...pass, tokensAfter: -1 })).toBeUndefined();
        const rejecting = new TelemetryRecorder({ sink: callbackSink(() => Promise.reject(new Error("gone"))) });
        rejecting.record(pass);
        await new Promise((r) => setTimeout(r, 0));
        const reports = stderr.mock.calls.map(([chunk]) => String(chunk));
        expect(reports.filter((r) => r.includes("disk full"))).toHaveLength(1);
        expect(reports.filter((r) => r.includes("gone"))).toHaveLength(1);
        expect(reports).toHaveLength(2);
      } finally {
        stderr.mockRestore();
      }
    });
  });
}

import { type TelemetryLine, telemetryFromLog } from "@palimpsest/core";
import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolStep } from "../support/exchange.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { openReportingRuntime } from "../support/telemetry-runtime.ts";
import { viewProblems } from "../support/view-invariants.ts";

const SECRET_WORD = "PLUMBAGO";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`after-turn passes with telemetry (${backend.name})`, () => {
    let runtime: Palimpsest;
    const lines: TelemetryLine[] = [];
    beforeAll(async () => {
      await backend.setup();
      runtime = await openReportingRuntime(backend, lines);
    });
    afterAll(() => backend.dispose());

    it("runs a micro pass after each turn, the batch policy over the threshold, one content-free line each", async () => {
      const session = await runtime.startSession();
      for (let n = 0; n < 45; n++) {
        await session.append(toolStep(n, `${SECRET_WORD} `.repeat(900), `step ${n} ${SECRET_WORD}`), {
          turnId: `turn${n}`,
        });
        await session.completeTurn(`turn${n}`);
        expect(viewProblems(session, await runtime.store.readStream(session.id))).toEqual([]);
      }
      const own = lines.filter((l) => l.sessionId === session.id);
      expect(own.length).toBe(45);
      expect(own.filter((l) => l.kind === "micro" && l.outcome === "absorbed").length).toBeGreaterThan(5);
      expect(JSON.stringify(lines)).not.toContain(SECRET_WORD);
      const markers = session.state.live.filter((e) => e.placedBy?.kind === "rolling-summary");
      expect(markers.length).toBeLessThanOrEqual(1);
      const last = own.at(-1);
      const fromLog = telemetryFromLog(await runtime.store.readStream(session.id));
      expect(fromLog.at(-1)?.totals.tokensSaved).toBe(last?.totals.tokensSaved);
      expect(session.state.liveTokens).toBeLessThan(54_400);
    });
  });
}

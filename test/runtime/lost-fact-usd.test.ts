/**
 * `compaction.lostFactUsd`: cost-optimal's price on a fact a summary drops. Unset, it compacts early only
 * when the summary has room for every fact of the span; priced low, it trades them for the saving. A value
 * that is no amount of dollars is VALIDATION, at construction and per call, writing nothing. On each backend.
 */
import { compact, Palimpsest, type Session } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

/** `turns` completed turns, each a test run of its own whose output names 60 timings: more facts than a summary's cap holds. */
async function factHeavy(session: Session, turns: number): Promise<void> {
  for (let t = 0; t < turns; t++) {
    const timings = Array.from({ length: 60 }, (_, i) => `case_${t}_${i} passed in ${t}.${i}5s`).join("\n");
    await session.append(
      [
        { id: `u${t}`, role: "user", content: `run suite ${t}` },
        {
          id: `a${t}`,
          role: "assistant",
          content: "",
          toolCalls: [
            { id: `c${t}`, name: "bash", arguments: JSON.stringify({ command: `pytest tests/suite_${t}.py` }) },
          ],
        },
        { id: `r${t}`, role: "tool", toolCallId: `c${t}`, content: timings },
        { id: `d${t}`, role: "assistant", content: `suite ${t} passed` },
      ],
      { turnId: `turn${t}` },
    );
    await session.completeTurn(`turn${t}`);
  }
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`cost-optimal's price on lost facts (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    const settings = { policy: "cost-optimal" as const, profile: "anthropic", contextWindow: 200_000 };

    it("waits while a summary would drop facts, and compacts the same view early once the user prices them at nothing", async () => {
      const session = await runtime.startSession({ contextWindow: 200_000, profile: "anthropic" });
      await factHeavy(session, 40);
      expect(session.state.liveTokens).toBeLessThan(67_000);
      const strict = await compact(session, settings);
      expect(strict).toMatchObject({ status: "skipped" });
      expect(strict.status === "skipped" && strict.reason).toMatch(/drop facts/);
      const traded = await compact(session, { ...settings, lostFactUsd: 0 });
      expect(traded).toMatchObject({ status: "compacted" });
    });

    it("refuses a lostFactUsd that is no amount of dollars with VALIDATION, writing nothing", async () => {
      const session = await runtime.startSession({ contextWindow: 200_000, profile: "anthropic" });
      await factHeavy(session, 3);
      const events = (await runtime.store.readStream(session.id)).length;
      for (const lostFactUsd of [-1, Number.NaN, Number.POSITIVE_INFINITY, "0.1" as unknown as number]) {
        const error = await rejection(compact(session, { ...settings, lostFactUsd, force: true }));
        expect([error.code, error.details]).toEqual(["VALIDATION", expect.objectContaining({ path: "lostFactUsd" })]);
        const counterFor = (encoding: "o200k_base" | "cl100k_base") => runtime.tokenCounter(encoding);
        const deps = { store: runtime.store, counterFor, compaction: { lostFactUsd } };
        const built = await rejection(Promise.resolve().then(() => new Palimpsest(deps)));
        expect([built.code, built.details]).toEqual([
          "VALIDATION",
          expect.objectContaining({ path: "compaction.lostFactUsd" }),
        ]);
      }
      expect(await runtime.store.readStream(session.id)).toHaveLength(events);
    });
  });
}

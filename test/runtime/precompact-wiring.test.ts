import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolStep } from "../support/exchange.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`pre-compaction in the runtime (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open({
        compaction: { auto: true, policy: "summary", profile: "local", contextWindow: 64_000 },
        precompact: { debounceMs: 0 },
      });
    });
    afterAll(() => backend.dispose());

    it("prepares a candidate in the background and commits only the delta at the threshold", async () => {
      const session = await runtime.startSession();
      const scheduler = runtime.precompaction;
      if (scheduler === undefined) throw new Error("pre-compaction is not on");
      for (let n = 0; n < 45 && session.state.viewVersion === 0; n++) {
        await session.append(toolStep(n, `log line ${n} `.repeat(500)), { turnId: `turn${n}` });
        await session.completeTurn(`turn${n}`);
        await scheduler.idle();
      }
      const log = await runtime.store.readStream(session.id);
      const modes = log.flatMap((e) => (e.type === "messages.superseded" ? [e.data.mode] : []));
      expect(modes).toEqual(["precompact"]);
      expect(scheduler.stats().hits).toBe(1);
      expect(viewProblems(session, log)).toEqual([]);
      expect((await runtime.resume(session.id)).view()).toEqual(session.view());
    });

    it("leaves a session started with settings.precompact false alone", async () => {
      const session = await runtime.startSession({ settings: { precompact: false } });
      const scheduler = runtime.precompaction;
      const jobsBefore = JSON.stringify(scheduler?.stats());
      for (let n = 0; n < 40; n++) {
        await session.append({ id: `u${n}`, role: "user", content: `note ${n} `.repeat(400) }, { turnId: `t${n}` });
        await session.completeTurn(`t${n}`);
        await scheduler?.idle();
      }
      expect(JSON.stringify(scheduler?.stats())).toBe(jobsBefore);
    });
  });
}

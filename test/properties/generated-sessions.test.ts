import type { Palimpsest } from "@palimpsest/runtime";
import { generatedSessionArb } from "@palimpsest/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../support/run-command.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`view invariants on generated sessions (${backend.name})`, () => {
    let runtime: Palimpsest;
    let fresh: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open({ snapshotEvery: 7 });
      fresh = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("every view after every command holds the invariants; a fresh runtime resumes the same view", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(generatedSessionArb({ maxSteps: 30 }), async (generated) => {
          const session = await runtime.startSession({
            ...generated.started,
            sessionId: `${generated.sessionId}-${run++}`,
          });
          for (const command of generated.commands) {
            await runCommand(session, command);
            if (command.type === "supersede") {
              expect(viewProblems(session, await runtime.store.readStream(session.id))).toEqual([]);
            }
          }
          expect(viewProblems(session, await runtime.store.readStream(session.id))).toEqual([]);
          expect(session.view().messages).toEqual(generated.state.live.map((e) => e.message));
          const resumed = await fresh.resume(session.id);
          expect(resumed.view()).toEqual(session.view());
          expect(resumed.resumeState()).toEqual(session.resumeState());
        }),
        { numRuns: 25 },
      );
    });
  });
}

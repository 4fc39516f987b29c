import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTranscript } from "@palimpsest/core";
import { commandForStep, sessionStepArb } from "@palimpsest/core/testing";
import { importSessions, loadSession, type Palimpsest } from "@palimpsest/store";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realTranscriptFiles, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

const files = realTranscriptFiles();

for (const backend of runtimeBackends()) {
  describe.skipIf(!HAVE_TRANSCRIPTS || backend.skip !== undefined)(
    `DESIGN.md invariants on real transcripts (${backend.name})`,
    () => {
      let runtime: Palimpsest;
      beforeAll(async () => {
        await backend.setup();
        runtime = await backend.open();
      });
      afterAll(() => backend.dispose());

      it.each(files)("%s: imported views hold every invariant and resume identically", async (file) => {
        const sessions = parseTranscript(readFileSync(join(TRANSCRIPTS_DIR, file), "utf8"), { fileName: file });
        const results = await importSessions(runtime, sessions);
        expect(results.length).toBeGreaterThan(0);
        const fresh = await backend.open();
        for (const { sessionId } of results) {
          const session = await runtime.resume(sessionId);
          const log = await runtime.store.readStream(sessionId);
          expect(viewProblems(session, log)).toEqual([]);
          const again = await fresh.resume(sessionId);
          expect(again.view()).toEqual(session.view());
          const replayed = await loadSession(fresh.store, sessionId, false);
          expect(replayed.state.live).toEqual(session.state.live);
        }
      });

      it.each(files)(
        "%s: random compactions keep every invariant, and a fresh process resumes the same view",
        async (file) => {
          const sessions = parseTranscript(readFileSync(join(TRANSCRIPTS_DIR, file), "utf8"), { fileName: file });
          const [first] = await importSessions(runtime, sessions.slice(0, 1));
          if (first === undefined) return;
          const base = await runtime.resume(first.sessionId);
          let compactions = 0;
          // Each run compacts its own copy of the imported view, so runs do not see each other.
          await fc.assert(
            fc.asyncProperty(
              fc.array(sessionStepArb({ maxTokens: 500 }), { minLength: 3, maxLength: 8 }),
              async (steps) => {
                const copy = await runtime.startSession({ encoding: base.state.started?.encoding ?? "o200k_base" });
                await copy.append(base.state.live.map((e) => e.message));
                for (const step of steps) {
                  if (step.kind !== "summary" && step.kind !== "prune") continue;
                  const command = commandForStep(copy.state as never, step);
                  if (command?.type !== "supersede") continue;
                  await copy.supersede(command.data);
                  compactions += 1;
                  expect(viewProblems(copy, await runtime.store.readStream(copy.id))).toEqual([]);
                }
                const resumed = await runtime.resume(copy.id);
                expect(resumed.view()).toEqual(copy.view());
              },
            ),
            { numRuns: 4, seed: 20261130 },
          );
          expect(compactions).toBeGreaterThan(0);
        },
      );
    },
  );
}

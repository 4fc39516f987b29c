import { readFileSync } from "node:fs";
import { join } from "node:path";
import { foldEvents, initialState, parseTranscript, type StoredEvent } from "@palimpsest/core";
import { activeView, compactionHistory } from "@palimpsest/projections";
import { importSessions, type Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels } from "@palimpsest/store";
import { generatedSessionArb } from "@palimpsest/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realTranscriptFiles, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { runCommand } from "../support/run-command.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

/** Checks the read models against the session's own log: every compaction, and every target's trail. */
async function expectModelsMatchLog(audit: AuditReadModels, sessionId: string, log: readonly StoredEvent[]) {
  const history = compactionHistory(log);
  const listed = await audit.compactions({ sessionId });
  expect(listed.map((c) => [c.compactionId, c.seq, c.mode, c.tokensReclaimed])).toEqual(
    history.map((h) => [h.compactionId, h.seq, h.mode, h.stats.tokensBefore - h.stats.tokensAfter]),
  );
  for (const h of history) {
    const [trail] = await audit.compaction(h.compactionId, sessionId);
    expect(trail?.targets).toEqual(h.targets);
    expect(trail?.replacements.map((r) => r.messageId)).toEqual(h.replacements.map((r) => r.id));
  }
  const failures = log.filter((e) => e.type === "compaction.failed").length;
  const [totals] = await audit.failureTotals({ sessionId }, []);
  expect(totals?.failures ?? 0).toBe(failures);
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`audit read models as properties (${backend.name})`, () => {
    let runtime: Palimpsest;
    let audit: AuditReadModels;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
      audit = new AuditReadModels(runtime.store, { catchUpOnRead: false });
    });
    afterAll(() => backend.dispose());

    it("on generated sessions, caught up in pages of any size, the models match the log and a rebuild", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          generatedSessionArb({ maxSteps: 25 }),
          fc.integer({ min: 1, max: 40 }),
          fc.nat(),
          async (generated, pageSize, pick) => {
            const session = await runtime.startSession({
              ...generated.started,
              sessionId: `${generated.sessionId}-${run++}`,
            });
            for (const command of generated.commands) {
              await runCommand(session, command);
              if (pick % 3 === 0) await audit.catchUp({ pageSize }); // projecting while the session grows
            }
            await audit.catchUp({ pageSize });
            const log = await runtime.store.readStream(session.id);
            await expectModelsMatchLog(audit, session.id, log);
            const seq = log.length === 0 ? 0 : (pick % log.length) + 1;
            expect((await audit.viewAsOf(session.id, { seq })).view).toEqual(
              activeView(foldEvents(initialState(session.id), log.slice(0, seq))),
            );
          },
        ),
        { numRuns: 20, seed: 6 },
      );
      expect(await audit.rebuild({ checkOnly: true })).toMatchObject({ equal: true, differenceCount: 0 });
    });

    it.skipIf(!HAVE_TRANSCRIPTS)(
      "on every real transcript, the models match each session's log and a rebuild",
      async () => {
        const ids: string[] = [];
        for (const file of realTranscriptFiles()) {
          const sessions = parseTranscript(readFileSync(join(TRANSCRIPTS_DIR, file), "utf8"), { fileName: file });
          ids.push(...(await importSessions(runtime, sessions)).map((r) => r.sessionId));
        }
        await audit.catchUp({ pageSize: 333 });
        for (const id of ids) await expectModelsMatchLog(audit, id, await runtime.store.readStream(id));
        const withParent = (await Promise.all(ids.map((id) => audit.lineage(id)))).filter(
          (l) => l.ancestors.length > 0,
        );
        for (const l of withParent) expect(ids).toContain(l.ancestors[0]?.sessionId);
        expect(await audit.rebuild({ checkOnly: true })).toMatchObject({ equal: true });
      },
    );
  });
}

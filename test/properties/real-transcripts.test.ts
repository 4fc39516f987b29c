import { checkToolPairs, type StoredEvent } from "@palimpsest/core";
import { checkUniqueIds } from "@palimpsest/core/testing";
import { importSessions, loadSession, type Palimpsest } from "@palimpsest/runtime";
import { commandForStep, sessionStepArb } from "@palimpsest/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../support/real-transcripts.ts";
import { rejection } from "../support/rejection.ts";
import { everyLayoutBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

const files = realTranscriptFiles();

/** The id of a message the log's last compaction superseded, when it superseded one. */
function supersededId(log: readonly StoredEvent[]): string | undefined {
  const last = log.findLast((e) => e.type === "messages.superseded");
  return last?.type === "messages.superseded" ? last.data.targets[0] : undefined;
}
// Runs per session, on every session of every file; a fixed seed, so the compaction counts are reproducible.
const RUNS = 6;
const SEED = 20261130;

for (const backend of everyLayoutBackends()) {
  describe.skipIf(!HAVE_TRANSCRIPTS || backend.skip !== undefined)(
    `view invariants on real transcripts (${backend.name})`,
    () => {
      let runtime: Palimpsest;
      let fresh: Palimpsest; // a second runtime on the same database: what another process would resume
      beforeAll(async () => {
        await backend.setup();
        runtime = await backend.open();
        fresh = await backend.open();
      });
      afterAll(() => backend.dispose());

      it.each(files)("%s: imported views hold every invariant and resume identically", async (file) => {
        const results = await importSessions(runtime, realSessions(file));
        expect(results.length).toBeGreaterThan(0);
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
        "%s: random compactions of every session keep every invariant, and a fresh process resumes the same view",
        { timeout: 240_000 },
        async (file) => {
          const results = await importSessions(runtime, realSessions(file));
          let compactions = 0;
          let reusedIds = 0;
          for (const { sessionId } of results) {
            const base = await runtime.resume(sessionId);
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
                  const resumed = await fresh.resume(copy.id);
                  expect(resumed.view()).toEqual(copy.view());
                  // Ids stay unique over the whole history: a superseded message's id, which neither the
                  // view nor the resumed state holds, is still refused, in this process and the other.
                  const gone =
                    copy.state.live.length === 0 ? undefined : supersededId(await runtime.store.readStream(copy.id));
                  if (gone !== undefined) {
                    for (const handle of [copy, resumed]) {
                      const refused = await rejection(handle.append({ id: gone, role: "user", content: "again" }));
                      expect(refused.details.rule).toBe("duplicate-message-id");
                    }
                    reusedIds += 1;
                  }
                },
              ),
              { numRuns: RUNS, seed: SEED },
            );
          }
          // The seed is fixed, so this count is the same on every run (and shows the property bites).
          console.info(
            `${file} (${backend.name}): ${results.length} sessions, ${compactions} random compactions, ${reusedIds} reused ids refused`,
          );
          expect(compactions).toBeGreaterThan(0);
          expect(reusedIds).toBeGreaterThan(0);
        },
      );

      // Last in this block: it erases the sessions the tests above imported.
      it.each(files)("%s: an erased session keeps its skeleton, holds the invariants and no text", async (file) => {
        const sources = realSessions(file);
        const results = await importSessions(runtime, sources);
        let checked = 0;
        for (const [i, { sessionId }] of results.entries()) {
          const before = await runtime.resume(sessionId);
          const texts = (sources[i]?.items ?? []).flatMap((item) =>
            item.kind === "message" ? item.message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])) : [],
          );
          await runtime.erase(sessionId, { reason: "retention" });
          const after = await fresh.resume(sessionId);
          const skeleton = (m: { id: string; role: string }) => [m.id, m.role];
          expect(after.view().messages.map(skeleton)).toEqual(before.view().messages.map(skeleton));
          expect(after.state.live.map((e) => e.tokens)).toEqual(before.state.live.map((e) => e.tokens));
          expect(checkUniqueIds(after.view().messages)).toEqual([]);
          expect(checkToolPairs(after.view().messages)).toEqual([]);
          const log = await runtime.store.readStream(sessionId);
          expect(log.filter((e) => e.type === "session.erased")).toHaveLength(1);
          const stored = JSON.stringify(log);
          // Texts long enough not to be an id or a word the skeleton could hold by chance.
          const long = texts.filter((t) => t.length >= 40);
          checked += long.length;
          expect(long.filter((t) => stored.includes(t))).toEqual([]);
          expect((await loadSession(fresh.store, sessionId, false)).state.live).toEqual(after.state.live);
          expect(await rejection(after.append({ role: "user", content: "more" }))).toMatchObject({
            details: { rule: "session-erased" },
          });
        }
        expect(checked).toBeGreaterThan(0); // the text check looked at something in every file
      });
    },
  );
}

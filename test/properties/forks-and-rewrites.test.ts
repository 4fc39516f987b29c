/**
 * Forks and rewrites on the real transcripts, on SQLite and PostgreSQL: a fork at a random seq of every
 * imported session starts with the parent's view as it stood then, holds every view invariant, and a
 * fresh process resumes it; a retraction of the fork's last exchange (a call with its results, or one
 * message) plus a new user message in the same rewrite keeps every invariant, and the parent is untouched.
 */
import { foldEvents, initialState, type LiveEntry } from "@palimpsest/core";
import { activeView } from "@palimpsest/projections";
import { importSessions, type Palimpsest } from "@palimpsest/runtime";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../support/real-transcripts.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

const files = realTranscriptFiles();
const RUNS = 3;
const SEED = 20261201;

/** The ids of the view's last run: its last message, or an assistant message with calls and every result after it. */
function lastRun(live: readonly LiveEntry[]): string[] {
  let start = live.length - 1;
  while (start > 0 && live[start]?.message.role === "tool") start--;
  return live.slice(Math.max(0, start)).map((e) => e.message.id);
}

for (const backend of runtimeBackends()) {
  describe.skipIf(!HAVE_TRANSCRIPTS || backend.skip !== undefined)(
    `forks and rewrites on real transcripts (${backend.name})`,
    () => {
      let runtime: Palimpsest;
      let fresh: Palimpsest;
      beforeAll(async () => {
        await backend.setup();
        runtime = await backend.open();
        fresh = await backend.open();
      });
      afterAll(() => backend.dispose());

      it.each(files)(
        "%s: a fork at any seq, then a retraction of its last exchange, keeps every invariant",
        { timeout: 240_000 },
        async (file) => {
          const results = await importSessions(runtime, realSessions(file));
          let rewrites = 0;
          for (const { sessionId } of results) {
            const log = await runtime.store.readStream(sessionId);
            const parentView = (await runtime.resume(sessionId)).view();
            await fc.assert(
              fc.asyncProperty(fc.integer({ min: 1, max: log.length }), async (atSeq) => {
                const fork = await runtime.fork(sessionId, { atSeq });
                const then = activeView(foldEvents(initialState(sessionId), log.slice(0, atSeq))).messages;
                expect(fork.view().messages).toEqual(then);
                expect(viewProblems(fork, await runtime.store.readStream(fork.id))).toEqual([]);
                expect((await fresh.resume(fork.id)).view()).toEqual(fork.view());
                if (fork.state.live.length === 0) return;
                await fork.rewrite({
                  mode: "retract",
                  targets: lastRun(fork.state.live),
                  append: [{ role: "user", content: "Try it another way." }],
                  expectedSeq: fork.state.lastSeq,
                });
                rewrites += 1;
                expect(viewProblems(fork, await runtime.store.readStream(fork.id))).toEqual([]);
                expect((await fresh.resume(fork.id)).view()).toEqual(fork.view());
                expect((await fresh.resume(sessionId)).view()).toEqual(parentView);
              }),
              { numRuns: RUNS, seed: SEED },
            );
          }
          console.info(`${file} (${backend.name}): ${results.length} sessions, ${rewrites} forks rewritten`);
          expect(rewrites).toBeGreaterThan(0);
        },
      );
    },
  );
}

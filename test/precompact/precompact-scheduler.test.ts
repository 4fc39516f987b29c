import { OfflineSummarizer, type Summarizer } from "@palimpsest/core";
import {
  compact,
  type Palimpsest,
  type PrecompactEvent,
  PrecompactionScheduler,
  type Session,
} from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { candidateStore, gated, growTo, slow, thresholds, turn, WINDOW } from "./precompact-fixtures.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`the background pre-compaction scheduler (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    function scheduler(summarizer: Summarizer = new OfflineSummarizer(), precompact = {}): PrecompactionScheduler {
      return new PrecompactionScheduler({
        candidates: candidateStore(runtime),
        compaction: { policy: "summary", summarizer },
        precompact: { debounceMs: 5, ...precompact },
      });
    }

    async function overSoft(): Promise<Session> {
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await growTo(session, thresholds(session).soft);
      return session;
    }

    it("does nothing under the soft threshold, and never writes to the log or changes the view", async () => {
      const precompaction = scheduler();
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await turn(session, 0);
      precompaction.onTurnCompleted(session);
      await precompaction.idle();
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeUndefined();

      await growTo(session, thresholds(session).soft, 1);
      const log = await runtime.store.readStream(session.id);
      const view = session.view();
      precompaction.onTurnCompleted(session);
      await precompaction.idle();
      expect(await candidateStore(runtime).loadCandidate(session.id)).toMatchObject({ basisViewVersion: 0 });
      expect(await runtime.store.readStream(session.id)).toEqual(log);
      expect(session.view()).toEqual(view);
      precompaction.onTurnCompleted(session);
      await precompaction.idle();
      expect(precompaction.stats().jobs).toEqual({ stored: 1, fresh: 1 });
      precompaction.dispose();
    });

    it("discards a job whose basis moved while it summarized: nothing stored, the work counted as wasted", async () => {
      const gate = gated();
      const precompaction = scheduler(gate.summarizer);
      const events: PrecompactEvent[] = [];
      precompaction.events$.subscribe((e) => events.push(e));
      const session = await overSoft();
      precompaction.onTurnCompleted(session);
      await gate.started;
      const heldFrom = performance.now();
      expect((await compact(session, { policy: "summary", force: true })).status).toBe("compacted");
      const held = performance.now() - heldFrom; // the job summarized at least this long, all of it for nothing
      gate.release();
      await precompaction.idle();
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeUndefined();
      expect(events).toEqual([expect.objectContaining({ type: "job", outcome: "discarded" })]);
      expect(held).toBeGreaterThan(0);
      expect(precompaction.stats().wastedMs).toBeGreaterThanOrEqual(held);
      precompaction.dispose();
    });

    it("discards it too when another process moved the view (the store's compare-and-set on the basis)", async () => {
      const gate = gated();
      const precompaction = scheduler(gate.summarizer);
      const session = await overSoft();
      precompaction.onTurnCompleted(session);
      await gate.started;
      const elsewhere = await (await backend.open()).resume(session.id);
      await compact(elsewhere, { policy: "summary", force: true });
      gate.release();
      await precompaction.idle();
      expect(precompaction.stats().jobs).toEqual({ discarded: 1 });
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeUndefined();
      precompaction.dispose();
    });

    it("runs at most one job per session and at most `concurrency` across sessions", async () => {
      const summarizer = gated();
      const precompaction = scheduler(summarizer.summarizer, { concurrency: 2 });
      const sessions = await Promise.all([overSoft(), overSoft(), overSoft()]);
      for (const session of sessions) precompaction.onTurnCompleted(session);
      await summarizer.arrived(2); // two jobs summarizing (held), the third waiting for a slot
      for (const session of sessions) precompaction.onTurnCompleted(session);
      summarizer.release();
      await precompaction.idle();
      expect(summarizer.maxActive()).toBe(2);
      expect(summarizer.calls()).toBe(3);
      for (const session of sessions) expect(await candidateStore(runtime).loadCandidate(session.id)).toBeDefined();
      precompaction.dispose();
    });

    it("debounces a burst of turns into one job", async () => {
      const summarizer = slow(1);
      const precompaction = scheduler(summarizer.summarizer, { debounceMs: 50 });
      const session = await overSoft();
      for (let i = 0; i < 5; i++) precompaction.onTurnCompleted(session);
      await precompaction.idle();
      expect(summarizer.calls()).toBe(1);
      precompaction.dispose();
    });

    it("cancels a running job: it ends cancelled and stores nothing", async () => {
      const gate = gated();
      const precompaction = scheduler(gate.summarizer);
      const session = await overSoft();
      precompaction.onTurnCompleted(session);
      await gate.started;
      precompaction.cancel(session.id);
      gate.release();
      await precompaction.idle();
      expect(precompaction.stats().jobs).toEqual({ cancelled: 1 });
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeUndefined();
      precompaction.dispose();
    });

    it("honours the global and the per-session off switches", async () => {
      const summarizer = slow(1);
      const off = scheduler(summarizer.summarizer, { enabled: false });
      const session = await overSoft();
      off.onTurnCompleted(session);
      await off.idle();
      off.dispose();

      const precompaction = scheduler(summarizer.summarizer);
      const other = await overSoft();
      precompaction.setSessionEnabled(session.id, false);
      precompaction.onTurnCompleted(session);
      precompaction.onTurnCompleted(other);
      await precompaction.idle();
      expect(summarizer.calls()).toBe(1);
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeUndefined();
      expect(await candidateStore(runtime).loadCandidate(other.id)).toBeDefined();
      precompaction.setSessionEnabled(session.id, true);
      precompaction.onTurnCompleted(session);
      await precompaction.idle();
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeDefined();
      precompaction.dispose();
    });

    it("stays off while micro-compaction runs for the session (each micro pass would invalidate the candidate)", async () => {
      const precompaction = new PrecompactionScheduler({
        candidates: candidateStore(runtime),
        compaction: { micro: {} },
        precompact: { debounceMs: 0 },
      });
      const session = await overSoft();
      precompaction.onTurnCompleted(session);
      await precompaction.idle();
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeUndefined();
      precompaction.dispose();
    });
  });
}

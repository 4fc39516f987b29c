import { compactionThreshold, OfflineSummarizer, runwayTarget, type Summarizer } from "@palimpsest/core";
import { formatSummaryMessage } from "@palimpsest/core/testing";
import {
  compact,
  compactRange,
  type Palimpsest,
  PrecompactionScheduler,
  resolveCompaction,
  type Session,
} from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";
import { candidateStore, growTo, recording, thresholds, WINDOW } from "./precompact-fixtures.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`compaction with a background candidate (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    function scheduler(summarizer: Summarizer = new OfflineSummarizer(), keepDelta = false): PrecompactionScheduler {
      return new PrecompactionScheduler({
        candidates: candidateStore(runtime),
        compaction: { policy: "summary", summarizer },
        precompact: { debounceMs: 0, keepDelta },
      });
    }

    /** A session past the soft threshold whose candidate is stored; returns the next turn number. */
    async function withCandidate(session: Session, precompaction: PrecompactionScheduler): Promise<number> {
      const next = await growTo(session, thresholds(session).soft);
      precompaction.onTurnCompleted(session);
      await precompaction.idle();
      expect(precompaction.stats().jobs).toEqual({ stored: 1 });
      return next;
    }

    async function check(session: Session): Promise<void> {
      expect(viewProblems(session, await runtime.store.readStream(session.id))).toEqual([]);
    }

    it("on a hit, summarizes only the delta and commits one precompact supersede equal to a cold compaction's span", async () => {
      const { summarizer, calls } = recording();
      const precompaction = scheduler(summarizer);
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const twin = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const next = await withCandidate(session, precompaction);
      const candidate = await candidateStore(runtime).loadCandidate(session.id);
      if (candidate === undefined) throw new Error("no candidate");
      await growTo(session, thresholds(session).hard, next);
      await growTo(twin, thresholds(twin).hard);
      const before = session.view().messages;
      const log = await runtime.store.readStream(session.id);

      const outcome = await precompaction.compact(session);
      expect(outcome.precompact).toMatchObject({ type: "hit", deltaMessages: expect.any(Number) });
      if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded") throw new Error("no commit");
      const { data } = outcome.event;
      expect(await runtime.store.readStream(session.id, { fromSeq: log.length + 1 })).toHaveLength(1);
      expect(data).toMatchObject({
        mode: "precompact",
        basis: { viewVersion: 0, prefixHash: candidate.key.prefixHash },
        producer: { policy: "summary", summarizerModel: summarizer.model, promptVersion: summarizer.promptVersion },
      });
      const cold = await compact(twin, { policy: "summary" });
      if (cold.status !== "compacted" || cold.event.type !== "messages.superseded") throw new Error("no cold commit");
      expect(data.targets).toEqual(cold.event.data.targets);
      expect(data.targets.slice(0, candidate.targets.length)).toEqual(candidate.targets);

      const delta = calls.at(-1);
      expect(delta?.request.previousSummary).toBe(candidate.summary);
      expect(delta?.request.messages.map((m) => m.id)).toEqual(data.targets.slice(candidate.targets.length));
      const summary = data.replacements[0]?.message;
      expect(summary?.content).toEqual([{ type: "text", text: formatSummaryMessage(delta?.result.text ?? "") }]);
      const first = before.findIndex((m) => m.id === data.targets[0]);
      const kept = before.filter((m) => !data.targets.includes(m.id));
      expect(session.view().messages).toEqual([...kept.slice(0, first), summary, ...kept.slice(first)]);
      await check(session);
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeUndefined();
      const stats = precompaction.stats();
      expect(stats).toMatchObject({ hits: 1, misses: {} });
      expect(stats.savedMs).toBeGreaterThanOrEqual(0);
      expect(stats.candidateAgeMs.max).toBeGreaterThanOrEqual(0);
      precompaction.dispose();
    });

    it("on a hit with room, commits the candidate's summary over its span alone: the delta stays verbatim, no summary on the turn", async () => {
      const { summarizer, calls } = recording();
      const precompaction = scheduler(summarizer, true);
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const next = await withCandidate(session, precompaction);
      const candidate = await candidateStore(runtime).loadCandidate(session.id);
      if (candidate === undefined) throw new Error("no candidate");
      await growTo(session, thresholds(session).hard, next);
      const before = session.view().messages;
      const summariesBefore = calls.length;

      const outcome = await precompaction.compact(session);
      if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded") throw new Error("no commit");
      const { data } = outcome.event;
      expect(calls).toHaveLength(summariesBefore); // nothing summarized on the turn
      expect(data.targets).toEqual(candidate.targets);
      const summary = data.replacements[0]?.message;
      expect(summary?.content).toEqual([{ type: "text", text: formatSummaryMessage(candidate.summary) }]);
      const first = before.findIndex((m) => m.id === data.targets[0]);
      const kept = before.filter((m) => !data.targets.includes(m.id));
      expect(session.view().messages).toEqual([...kept.slice(0, first), summary, ...kept.slice(first)]);
      if (outcome.precompact?.type !== "hit") throw new Error("not a hit");
      expect(outcome.precompact.deltaMessages).toBe(0);
      expect(outcome.precompact.keptVerbatim).toBeGreaterThan(0);
      // Where it lands: at or under the runway an accepted prune must reach, well under the threshold.
      const settings = resolveCompaction({}, session.state, () => 0);
      const hard = compactionThreshold(settings.contextWindow, settings.maxOutputTokens, settings.profile.threshold);
      expect(session.state.liveTokens).toBeLessThanOrEqual(runwayTarget(hard, settings.profile.runway));
      await check(session);
      precompaction.dispose();
    });

    it("with room but keepDelta off, or without room, summarizes the delta as before", async () => {
      const precompaction = scheduler(new OfflineSummarizer(), true);
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const next = await withCandidate(session, precompaction);
      await growTo(session, thresholds(session).hard, next);
      const off = await precompaction.compact(session, { keepDelta: false });
      if (off.precompact?.type !== "hit") throw new Error("not a hit");
      expect(off.precompact.deltaMessages).toBeGreaterThan(0);
      expect(off.precompact.keptVerbatim).toBe(0);
      // A window so small that the candidate's span alone cannot bring the view under the runway.
      precompaction.dispose();
      const second = scheduler(new OfflineSummarizer(), true);
      const tight = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const more = await withCandidate(tight, second);
      await growTo(tight, Math.floor(thresholds(tight).hard * 1.6), more);
      const full = await second.compact(tight);
      if (full.precompact?.type !== "hit") throw new Error(`not a hit: ${JSON.stringify(full.precompact)}`);
      expect(full.precompact.keptVerbatim).toBe(0);
      expect(full.precompact.deltaMessages).toBeGreaterThan(0);
      await check(tight);
      second.dispose();
    });

    it("with measureCold, times a cold summary of the same span beside the commit", async () => {
      const precompaction = scheduler();
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await growTo(session, thresholds(session).hard, await withCandidate(session, precompaction));
      const outcome = await precompaction.compact(session, { measureCold: true });
      expect(outcome.precompact).toMatchObject({ type: "hit", coldMeasured: true });
      await check(session);
      precompaction.dispose();
    });

    it("on a miss (another prompt version), discards the candidate and falls back to compact()", async () => {
      const precompaction = scheduler();
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await growTo(session, thresholds(session).hard, await withCandidate(session, precompaction));
      const offline = new OfflineSummarizer();
      const other = { model: offline.model, promptVersion: "v-next", summarize: offline.summarize.bind(offline) };
      const outcome = await precompaction.compact(session, { summarizer: other });
      expect(outcome.precompact).toMatchObject({ type: "miss", reason: "summarizer-changed" });
      expect(
        outcome.status === "compacted" && outcome.event.type === "messages.superseded" && outcome.event.data.mode,
      ).toBe("summary");
      expect(await candidateStore(runtime).loadCandidate(session.id)).toBeUndefined();
      expect(precompaction.stats().misses).toEqual({ "summarizer-changed": 1 });
      await check(session);
      precompaction.dispose();
    });

    it("on a miss (an undo superseded part of the prefix), falls back to compact()", async () => {
      const precompaction = scheduler();
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const next = await withCandidate(session, precompaction);
      await compactRange(session, { fromId: "u5", toId: "r5", summary: "step 5 was undone", policy: "retract" });
      await growTo(session, thresholds(session).hard, next);
      const outcome = await precompaction.compact(session);
      expect(outcome.precompact).toMatchObject({ type: "miss" });
      expect(outcome.status).toBe("compacted");
      await check(session);
      precompaction.dispose();
    });

    it("with no candidate, or switched off, compacts the usual way", async () => {
      const precompaction = scheduler();
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await growTo(session, thresholds(session).hard);
      expect(await precompaction.compact(session)).toMatchObject({
        status: "compacted",
        precompact: { type: "miss", reason: "no-candidate" },
      });
      const off = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await growTo(off, thresholds(off).hard);
      const outcome = await precompaction.compact(off, { enabled: false });
      expect(outcome.status).toBe("compacted");
      expect(outcome.precompact).toBeUndefined();
      precompaction.dispose();
    });
  });
}

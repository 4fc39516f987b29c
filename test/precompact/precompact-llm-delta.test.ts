/**
 * A hit with an LLM summarizer (the OpenAI-compatible one against the local fake server, which charges a
 * delay per input token): the background job sends the candidate's prefix, and the hit sends only the delta
 * after it, continuing the candidate's summary. Correctness of what is sent, not timing.
 */
import { type Palimpsest, PrecompactionScheduler } from "@palimpsest/runtime";
import { OpenAICompatibleSummarizer } from "@palimpsest/summarizers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../../packages/summarizers/test/support/fake-provider.ts";
import { chatCompletion, sectionedAnswer } from "../../packages/summarizers/test/support/sample.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { candidateStore, growTo, thresholds, WINDOW } from "./precompact-fixtures.ts";

const completion = chatCompletion(sectionedAnswer("candidate state"));

/** The turn numbers whose user message ("step n: …") a request's prompt carries. */
function stepsIn(raw: unknown): number[] {
  const body = raw as { messages: { role: string; content: string }[] };
  const prompt = body.messages.find((m) => m.role === "user")?.content ?? "";
  return [...prompt.matchAll(/step (\d+): run the build/g)].map((m) => Number(m[1]));
}

/** Turn numbers of fixture message ids (u3, a3, t3, r3 → 3), once each, in order. */
function turnsOf(ids: readonly string[]): number[] {
  return [...new Set(ids.filter((id) => id.startsWith("u")).map((id) => Number(id.slice(1))))];
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`a pre-compaction hit with an LLM summarizer (${backend.name})`, () => {
    let runtime: Palimpsest;
    let provider: FakeProvider;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
      provider = await startFakeProvider([{ body: completion }], "/v1", { perInputTokenMs: 0.001 });
    });
    afterAll(async () => {
      await provider.close();
      await backend.dispose();
    });

    it("sends the summarizer only the delta after the candidate, then (measureCold) the whole span once", async () => {
      const summarizer = new OpenAICompatibleSummarizer({
        model: "slow-model",
        baseURL: provider.baseURL,
        apiKey: "k",
        maxRetries: 0,
      });
      const scheduler = new PrecompactionScheduler({
        candidates: candidateStore(runtime),
        compaction: { policy: "summary", summarizer },
        precompact: { debounceMs: 0, keepDelta: false }, // the delta path: what a hit without room does
      });
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      const next = await growTo(session, thresholds(session).soft);
      const sentBefore = provider.received.length;
      scheduler.onTurnCompleted(session);
      await scheduler.idle();
      expect(scheduler.stats().jobs).toEqual({ stored: 1 });
      const candidate = await candidateStore(runtime).loadCandidate(session.id);
      if (candidate === undefined) throw new Error("no candidate");
      const [job] = provider.received.slice(sentBefore);
      expect(stepsIn(job?.json)).toEqual(turnsOf(candidate.targets));

      await growTo(session, thresholds(session).hard, next);
      const sentAtCompaction = provider.received.length;
      const outcome = await scheduler.compact(session, { measureCold: true });
      expect(outcome.precompact).toMatchObject({ type: "hit", coldMeasured: true });
      if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded") throw new Error("no commit");
      const targets = outcome.event.data.targets;
      expect(targets.slice(0, candidate.targets.length)).toEqual(candidate.targets);
      const deltaTurns = turnsOf(targets.slice(candidate.targets.length));
      expect(deltaTurns.length).toBeGreaterThan(0);

      const [delta, cold, ...more] = provider.received.slice(sentAtCompaction);
      expect(more).toEqual([]);
      expect(stepsIn(delta?.json)).toEqual(deltaTurns);
      expect(delta?.raw).toContain("candidate state"); // the candidate's summary, continued
      expect(stepsIn(cold?.json)).toEqual(turnsOf(targets));
      expect(delta?.inputTokens).toBeLessThan(cold?.inputTokens ?? 0);
      scheduler.dispose();
    });
  });
}

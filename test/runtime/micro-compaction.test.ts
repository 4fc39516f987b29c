import { OfflineSummarizer, type Summarizer, SummarizerError, type SummaryRequest } from "@palimpsest/core";
import { compact, type MicroCompactOptions, microCompact, type Palimpsest, type Session } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

const WINDOW = 8_192;
/** A small protected tail, so a few turns leave exchanges to absorb. */
const OPTIONS: MicroCompactOptions = { tailTokens: 200 };

/** A tool output of roughly `tokens` tokens of varied text. */
function output(n: number, tokens: number, marker = ""): string {
  const words = ["alpha", "build", "cache", "delta", "error:", "src/app.ts", "0x1f", "passed", "failed", "retry"];
  return `${marker}${Array.from({ length: tokens }, (_, i) => words[(i * 7 + n) % words.length]).join(" ")}`;
}

/** Appends and completes turns `from`..`from+count-1`: user, assistant calling a tool, its result, a reply. */
async function turns(session: Session, from: number, count: number, poison?: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await session.append(
      [
        { id: `u${n}`, role: "user", content: `step ${n}: run the build` },
        {
          id: `a${n}`,
          role: "assistant",
          content: "",
          toolCalls: [{ id: `c${n}`, name: "shell", arguments: `{"n":${n}}` }],
        },
        { id: `t${n}`, role: "tool", toolCallId: `c${n}`, content: output(n, 80, n === poison ? "POISON " : "") },
        { id: `r${n}`, role: "assistant", content: `step ${n} done` },
      ],
      { turnId: `turn${n}` },
    );
    await session.completeTurn(`turn${n}`);
  }
}

/** The offline summarizer, except that it times out on any exchange mentioning POISON. */
function poisonSensitive(): Summarizer {
  const offline = new OfflineSummarizer();
  return {
    model: offline.model,
    promptVersion: offline.promptVersion,
    async summarize(request: SummaryRequest) {
      if (JSON.stringify(request.messages).includes("POISON")) throw new SummarizerError("timeout", "test", "stuck");
      return offline.summarize(request);
    },
  };
}

function markerIds(session: Session): string[] {
  return session.state.live.filter((e) => e.placedBy?.kind === "rolling-summary").map((e) => e.message.id);
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`micro-compaction in the runtime (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open({ snapshotEvery: 7 });
    });
    afterAll(() => backend.dispose());

    async function check(session: Session): Promise<void> {
      const log = await runtime.store.readStream(session.id);
      expect(viewProblems(session, log)).toEqual([]);
    }

    it("shrinks the view pass by pass: the first pass may grow it, later ones replace the marker, break-even comes early", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW });
      await turns(session, 1, 8);
      const series = [session.state.liveTokens];
      for (let pass = 1; pass <= 8; pass++) {
        const previous = markerIds(session);
        const outcome = await microCompact(session, OPTIONS);
        expect(outcome).toMatchObject({ outcome: "absorbed", tokensBefore: series.at(-1) });
        series.push(outcome.tokensAfter);
        // From the second pass on, the marker is replaced (it is the first target), not added.
        expect(markerIds(session)).toHaveLength(1);
        const event = outcome.event?.type === "messages.superseded" ? outcome.event.data : undefined;
        expect(event?.targets.slice(0, previous.length)).toEqual(previous);
        await check(session);
      }
      const start = series[0] ?? 0;
      const breakEven = series.findIndex((tokens, pass) => pass > 0 && tokens < start);
      // The first pass pays the marker's scaffolding against one short reply: the view grows.
      expect(series[1]).toBeGreaterThan(start);
      expect(breakEven).toBeGreaterThan(1);
      expect(breakEven).toBeLessThanOrEqual(5);
      expect(series.at(-1)).toBeLessThan(start);
      console.log(
        `micro first-pass shape (${backend.name}): view tokens ${series.join(" → ")}; break-even at pass ${breakEven}`,
      );
      for (let n = 1; n <= 8; n++) expect(session.view().messages.map((m) => m.id)).toContain(`u${n}`);
    });

    it("a fresh runtime continues from the cursor derived from the log, never loading a marker with what it absorbed", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW });
      await turns(session, 1, 6);
      for (let pass = 0; pass < 3; pass++) await microCompact(session, OPTIONS);
      const fresh = await backend.open({ snapshotEvery: 7 });
      const resumed = await fresh.resume(session.id);
      expect(resumed.view()).toEqual(session.view());
      const log = await fresh.store.readStream(session.id);
      expect(viewProblems(resumed, log)).toEqual([]);
      const [marker] = markerIds(resumed);
      const next = await microCompact(resumed, OPTIONS);
      expect(next.outcome).toBe("absorbed");
      expect(next.event?.type === "messages.superseded" && next.event.data.targets).toEqual([marker, "a3", "t3"]);
      expect(viewProblems(resumed, await fresh.store.readStream(session.id))).toEqual([]);
    });

    it("skips an exchange the summarizer fails on after 3 attempts, and the cursor moves past it", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW });
      await turns(session, 1, 6, 2);
      const options = { ...OPTIONS, summarizer: poisonSensitive() };
      expect((await microCompact(session, options)).outcome).toBe("absorbed");
      for (let attempt = 1; attempt <= 3; attempt++) {
        const failed = await microCompact(session, options);
        expect(failed).toMatchObject({ outcome: "failed", event: { type: "compaction.failed" } });
        expect(failed.event?.data).toMatchObject({ mode: "micro", attempt, targets: ["a2", "t2"], reason: "timeout" });
      }
      const fresh = await (await backend.open()).resume(session.id);
      const past = await microCompact(fresh, options);
      expect(past).toMatchObject({ outcome: "absorbed", plan: { at: "r2", passedOver: [["a2", "t2"]] } });
      expect(fresh.view().messages.map((m) => m.id)).toEqual(expect.arrayContaining(["a2", "t2"]));
      expect((await microCompact(fresh, options)).plan).toMatchObject({ kind: "absorb", at: "a3" });
    });

    it("defrags a marker over its limit, committing only a smaller one", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW });
      await turns(session, 1, 8);
      const options = { ...OPTIONS, defragLimitTokens: 250 };
      let defragged = false;
      for (let pass = 0; pass < 12 && !defragged; pass++) {
        const before = session.state.live.find((e) => e.placedBy?.kind === "rolling-summary");
        const outcome = await microCompact(session, options);
        if (outcome.outcome !== "defragged") continue;
        defragged = true;
        expect(before?.tokens).toBeGreaterThan(250);
        expect(outcome.rollingSummaryTokens).toBeLessThan(before?.tokens ?? 0);
        expect(outcome.event?.type === "messages.superseded" && outcome.event.data).toMatchObject({
          mode: "defrag",
          targets: [before?.message.id],
        });
      }
      expect(defragged).toBe(true);
      await check(session);
    });

    it("a batch compaction resets the micro state; micro passes never touch its summary", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW });
      await turns(session, 1, 20, 2);
      const options = { ...OPTIONS, summarizer: poisonSensitive() };
      await microCompact(session, options);
      expect((await microCompact(session, options)).outcome).toBe("failed");
      expect(session.state.micro.failedExchanges).toEqual(["a2"]);
      expect((await compact(session, { policy: "summary", force: true })).status).toBe("compacted");
      expect(session.state.micro).toEqual({ failedExchanges: [], staleDefrags: [] });
      const summary = session.state.live.find((e) => e.placedBy?.kind === "summary");
      expect(summary).toBeDefined();
      await turns(session, 21, 4);
      const after = await microCompact(session, OPTIONS);
      expect(after.outcome).toBe("absorbed");
      const live = session.view().messages.map((m) => m.id);
      expect(live.indexOf(markerIds(session)[0] ?? "")).toBeGreaterThan(live.indexOf(summary?.message.id ?? ""));
      expect(after.event?.type === "messages.superseded" && after.event.data.targets).not.toContain(
        summary?.message.id,
      );
      await check(session);
    });

    it("does nothing for a session that switched it off, or when the store's switch is off", async () => {
      const optedOut = await runtime.startSession({ contextWindow: WINDOW, settings: { microCompact: false } });
      await turns(optedOut, 1, 4);
      expect(await microCompact(optedOut, OPTIONS)).toMatchObject({ outcome: "noop" });
      const session = await runtime.startSession({ contextWindow: WINDOW });
      await turns(session, 1, 4);
      expect(await microCompact(session, { ...OPTIONS, enabled: false })).toMatchObject({ outcome: "noop" });
      expect(await microCompact(session, { ...OPTIONS, everyNTurns: 3 })).toMatchObject({ outcome: "noop" });
    });
  });
}

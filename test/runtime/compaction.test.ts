import { type Summarizer, SummarizerError, type SummaryRequest } from "@palimpsest/core";
import { compact, type Palimpsest, type Session } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

const WINDOW = 64_000; // threshold 54,400 (the floor binds at 85% of the window)

/** A tool output of roughly `tokens` tokens of varied text. */
function output(n: number, tokens: number): string {
  const words = ["alpha", "build", "cache", "delta", "error:", "src/app.ts", "0x1f", "passed", "failed", "retry"];
  return Array.from({ length: tokens }, (_, i) => words[(i * 7 + n) % words.length]).join(" ");
}

/** Appends `count` exchanges (user, assistant with a call, tool result, assistant) of about `tokens` each. */
async function grow(session: Session, from: number, count: number, tokens = 1_500, tool = "shell"): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await session.append(
      [
        { id: `u${n}`, role: "user", content: `step ${n}: run the build` },
        {
          id: `a${n}`,
          role: "assistant",
          content: "running",
          toolCalls: [{ id: `c${n}`, name: tool, arguments: `{"n":${n}}` }],
        },
        { id: `t${n}`, role: "tool", toolCallId: `c${n}`, content: output(n, tokens) },
        { id: `r${n}`, role: "assistant", content: `step ${n} done` },
      ],
      { turnId: `turn${n}` },
    );
  }
}

/** A summarizer that fails with a classified reason. */
function failing(reason: SummarizerError["details"]["reason"]): Summarizer {
  return {
    model: "failing",
    promptVersion: "v1",
    summarize: async () => {
      throw new SummarizerError(reason, "test", `simulated ${reason}`);
    },
  };
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`compaction in the runtime (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    async function check(session: Session): Promise<void> {
      expect(viewProblems(session, await runtime.store.readStream(session.id))).toEqual([]);
    }

    it("skips under the threshold, summarizes over it with the offline summarizer, and keeps the tail verbatim", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await grow(session, 0, 10);
      expect(await compact(session, { policy: "summary" })).toMatchObject({ status: "skipped" });
      await grow(session, 10, 30);
      const before = session.state.liveTokens;
      const lastUser = session.view().messages.findLast((m) => m.role === "user");
      const outcome = await compact(session, { policy: "summary" });
      expect(outcome.status).toBe("compacted");
      if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded")
        throw new Error("no compaction");
      const { data } = outcome.event;
      expect(data.mode).toBe("summary");
      expect(data.replacements[0]?.kind).toBe("summary");
      expect(data.producer).toMatchObject({
        policy: "summary",
        profile: "local",
        summarizerModel: "offline-extractive",
      });
      expect(session.state.liveTokens).toBeLessThan(before);
      expect(session.view().messages).toContainEqual(lastUser);
      const summary = session.view().messages.find((m) => m.id === data.replacements[0]?.message.id);
      expect(JSON.stringify(summary?.content)).toMatch(/background|reference/i);
      await check(session);
      expect((await session.expand(data.compactionId)).map((e) => e.message.id)).toEqual(data.targets);
    });

    it("prunes old tool outputs first when that buys the runway, else falls through to a summary", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "anthropic" });
      await grow(session, 0, 40, 1_500);
      const pruned = await compact(session, { policy: "prune-first" });
      expect(pruned.status).toBe("compacted");
      if (pruned.status !== "compacted") throw new Error("no compaction");
      expect(pruned.plan.kind).toBe("prune");
      await check(session);
      const stubs = session.state.live.filter((e) => e.placedBy?.kind === "stub");
      expect(stubs.length).toBeGreaterThan(0);
      for (const stub of stubs) expect(stub.message.role).toBe("tool");

      const protectedOnly = await runtime.startSession({ contextWindow: WINDOW, profile: "anthropic" });
      await grow(protectedOnly, 0, 40, 1_500, "read_file");
      const fallThrough = await compact(protectedOnly, { policy: "prune-first" });
      expect(fallThrough.status === "compacted" && fallThrough.plan.kind).toBe("summary");
      await check(protectedOnly);
    });

    it("records a failed summary with its class, leaves the view untouched, and backs off", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await grow(session, 0, 40);
      const view = session.view();
      const outcome = await compact(session, { policy: "summary", summarizer: failing("rate-limited") });
      expect(outcome).toMatchObject({ status: "failed", reason: "rate-limited" });
      expect(session.view()).toEqual({ ...view, lastSeq: session.state.lastSeq });
      const log = await runtime.store.readStream(session.id);
      expect(log.at(-1)).toMatchObject({
        type: "compaction.failed",
        data: { reason: "rate-limited", mode: "summary" },
      });
      expect(await compact(session, { policy: "summary", summarizer: failing("rate-limited") })).toMatchObject({
        status: "skipped",
      });
      expect((await compact(session, { policy: "summary", force: true })).status).toBe("compacted");
    });

    it("never lets a secret reach the summarizer or the stored summary", async () => {
      const secrets = [
        "sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
        "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
        "AKIAIOSFODNN7EXAMPLE",
        "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ",
        "postgres://admin:hunter2hunter2@db.internal:5432/prod",
      ];
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await grow(session, 0, 5);
      await session.append({ id: "leak", role: "user", content: `use these: ${secrets.join(" and ")}` });
      await grow(session, 5, 35);
      let request = "";
      const echo: Summarizer = {
        model: "echo",
        promptVersion: "v1",
        summarize: async (r) => {
          request = JSON.stringify(r);
          return { text: `the user gave ${secrets[0]} and ${secrets[4]}` };
        },
      };
      const outcome = await compact(session, { policy: "summary", summarizer: echo });
      expect(outcome.status).toBe("compacted");
      expect(request).toContain("use these");
      const stored = JSON.stringify(await runtime.store.readStream(session.id, { fromSeq: session.state.lastSeq }));
      for (const secret of secrets) {
        expect(request).not.toContain(secret);
        expect(stored).not.toContain(secret);
      }
      expect(stored).not.toContain("hunter2hunter2");
    });

    it("keeps messages appended while the summary was written, verbatim after it", async () => {
      const session = await runtime.startSession({ contextWindow: WINDOW, profile: "local" });
      await grow(session, 0, 40);
      const other = await runtime.resume(session.id);
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let seen: SummaryRequest | undefined;
      let summarizing: () => void = () => {};
      const called = new Promise<void>((resolve) => {
        summarizing = resolve;
      });
      const slow: Summarizer = {
        model: "slow",
        promptVersion: "v1",
        summarize: async (request) => {
          seen = request;
          summarizing();
          await gate;
          return { text: "the work so far" };
        },
      };
      const running = compact(session, { policy: "summary", summarizer: slow });
      await called; // the compaction has read its view and is writing the summary
      await grow(other, 40, 2);
      release();
      expect((await running).status).toBe("compacted");
      expect(seen?.messages.length).toBeGreaterThan(0);
      const view = (await runtime.resume(session.id)).view().messages.map((m) => m.id);
      expect(view.slice(-8)).toEqual(["u40", "a40", "t40", "r40", "u41", "a41", "t41", "r41"]);
      await check(await runtime.resume(session.id));
    });

    it("trims a giant tool output in the append that records it; expand returns the full text", async () => {
      const trimming = await backend.open({ compaction: { trimOnAppend: true, profile: "anthropic" } });
      const session = await trimming.startSession();
      const full = output(1, 30_000);
      const events = await session.append([
        { id: "u", role: "user", content: "dump the log" },
        { id: "a", role: "assistant", content: "", toolCalls: [{ id: "c", name: "shell", arguments: "{}" }] },
        { id: "t", role: "tool", toolCallId: "c", content: full },
      ]);
      expect(events.map((e) => e.type)).toEqual([
        "message.appended",
        "message.appended",
        "message.appended",
        "messages.superseded",
      ]);
      const tool = session.view().messages.find((m) => m.role === "tool");
      expect(tool?.toolCallId).toBe("c");
      expect(JSON.stringify(tool?.content)).toContain("palimpsest expand");
      expect(session.state.liveTokens).toBeLessThan(15_000);
      const trim = events[3];
      if (trim?.type !== "messages.superseded") throw new Error("no trim");
      expect((await session.expand(trim.data.compactionId))[0]?.message.content).toEqual([
        { type: "text", text: full },
      ]);
      await check(session);
    });

    it("checks the policy after every completed turn when automatic compaction is on", async () => {
      const outcomes: string[] = [];
      const auto = await backend.open({
        compaction: { auto: true, policy: "summary", profile: "local" },
        onAutoCompaction: (outcome) => outcomes.push(outcome.status),
      });
      const session = await auto.startSession({ contextWindow: WINDOW });
      for (let n = 0; n < 45; n++) {
        await grow(session, n, 1);
        await session.completeTurn(`turn${n}`);
      }
      expect(outcomes).toContain("compacted");
      expect(session.state.liveTokens).toBeLessThan(54_400);
      await check(session);
    });
  });
}

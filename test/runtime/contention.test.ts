/**
 * The session's one write loop under another writer, made deterministic: the other writer commits at a
 * chosen point (just before this handle's append, or while its summary is being written), never on a
 * timer. What reaches the caller is a precondition of its own or a spent budget, never a race it lost.
 */
import type { RuntimeStore, StoredEvent, Summarizer } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { compact, Palimpsest, type Session } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

/** A summarizer that, on each call, first runs `during` (another writer's move) and counts the calls. */
function summarizerDuring(during: () => Promise<void>): Summarizer & { calls: number } {
  return {
    model: "during",
    promptVersion: "v1",
    calls: 0,
    async summarize(request) {
      this.calls++;
      await during();
      return { text: `summary of ${request.messages.length} messages`, inputTokens: 1, outputTokens: 1 };
    },
  };
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`the session's write loop under another writer (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    /**
     * A runtime whose appends are each preceded by `before(n)` (n counts them from 0), on its own
     * connections: the other writer gets in exactly between this handle's decision and its commit.
     */
    async function racing(before: (n: number) => Promise<void>, contentionTimeoutMs?: number) {
      const raw = (await backend.open()).store;
      let n = 0;
      const store = new Proxy(raw, {
        get(target, name) {
          if (name === "append") {
            return async (...args: Parameters<RuntimeStore["append"]>) => {
              await before(n++);
              return target.append(...args);
            };
          }
          const value = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      return new Palimpsest({
        store,
        counterFor: createTokenCounter,
        ...(contentionTimeoutMs === undefined ? {} : { contentionTimeoutMs }),
      });
    }

    const appendedIds = (log: readonly StoredEvent[]) =>
      log.flatMap((e) => (e.type === "message.appended" ? [e.data.message.id] : []));

    it("a write that loses every race for its whole budget is a contention conflict with its attempts; nothing of it is stored", async () => {
      const session = await runtime.startSession();
      const other = await runtime.resume(session.id);
      let k = 0;
      const loser = await racing(async () => {
        await other.append({ id: `other-${k++}`, role: "user", content: "the other writer first" });
      }, 400); // long enough for two attempts on a loaded machine (each waits for the other writer's append)
      const handle = await loser.resume(session.id);
      const error = await handle.append({ id: "mine", role: "user", content: "never lands" }).catch((e) => e);
      expect(error).toMatchObject({ code: "CONCURRENCY_CONFLICT", details: { reason: "contention" } });
      expect(error.details.attempts).toBeGreaterThan(1);
      expect(error.details.waitedMs).toBeGreaterThanOrEqual(400);
      expect(error.retryable).toBe(true);
      expect(appendedIds(await runtime.store.readStream(session.id))).not.toContain("mine");
    });

    it("with its budget, a write that loses several races in a row lands once, after them", async () => {
      const session = await runtime.startSession();
      const other = await runtime.resume(session.id);
      const loser = await racing(async (n) => {
        if (n < 5) await other.append({ id: `other-${n}`, role: "user", content: "the other writer first" });
      });
      const handle = await loser.resume(session.id);
      await handle.append({ id: "mine", role: "user", content: "lands last" });
      const ids = appendedIds(await runtime.store.readStream(session.id));
      expect(ids).toEqual(["other-0", "other-1", "other-2", "other-3", "other-4", "mine"]);
    });

    it("a precondition the caller gave is a precondition conflict at once: a stale basis, a stale expectedSeq", async () => {
      const session = await runtime.startSession();
      for (let n = 0; n < 3; n++) await session.append(exchange(n));
      const stale = await runtime.resume(session.id);
      const { lastSeq, viewVersion } = stale.state; // what the caller read before another writer moved the view
      await session.rewrite({ mode: "retract", targets: ["r2"] });
      const rewrite = await stale.rewrite({ mode: "retract", targets: ["r1"], expectedSeq: lastSeq }).catch((e) => e);
      expect(rewrite).toMatchObject({
        code: "CONCURRENCY_CONFLICT",
        details: { reason: "precondition", subject: "stream-version" },
      });
      const basis = await stale.rewrite({ mode: "retract", targets: ["r1"], viewVersion }).catch((e) => e);
      expect(basis).toMatchObject({ code: "CONCURRENCY_CONFLICT", details: { reason: "precondition" } });
      expect((await runtime.resume(session.id)).view().messages.map((m) => m.id)).toContain("r1");
    });

    it("write() asks its plan again on the moved state: a pop planned on a stale view pops what landed meanwhile", async () => {
      const session = await runtime.startSession();
      await session.append({ id: "m1", role: "user", content: "first" });
      const stale = await runtime.resume(session.id);
      await session.append({ id: "m2", role: "user", content: "second, from another writer" });
      const seen: string[] = [];
      await stale.write((state) => {
        const newest = state.live.at(-1)?.message.id as string;
        seen.push(newest);
        return { kind: "rewrite", rewrite: { mode: "retract", targets: [newest] } };
      });
      expect(seen).toEqual(["m1", "m2"]);
      expect((await runtime.resume(session.id)).view().messages.map((m) => m.id)).toEqual(["m1"]);
    });

    it("a refusal decided on a stale state is decided again; with no budget left it is a contention conflict, never the stale refusal", async () => {
      for (const contentionTimeoutMs of [0, undefined]) {
        const session = await runtime.startSession();
        const stale = await (
          await backend.open(contentionTimeoutMs === undefined ? {} : { contentionTimeoutMs })
        ).resume(session.id);
        const [user, call] = exchange(1);
        await session.append([user, call] as NonNullable<typeof user>[]);
        // The stale handle has not seen the call its result answers.
        const result = stale.append({ id: "t1", role: "tool", toolCallId: "c1", content: "done" }).catch((e) => e);
        if (contentionTimeoutMs === 0) {
          expect(await result).toMatchObject({ code: "CONCURRENCY_CONFLICT", details: { reason: "contention" } });
        } else {
          expect(await result).toHaveLength(1);
          expect(stale.view().messages.map((m) => m.id)).toEqual(["u1", "a1", "t1"]);
        }
      }
    });

    describe("a compaction whose summary is being written while the session moves", () => {
      /** A session over the threshold of a 4,000-token window, and a second handle on it. */
      async function busy(): Promise<{ session: Session; other: Session }> {
        const session = await runtime.startSession({ model: "gpt-4o", contextWindow: 4_000 });
        for (let n = 0; n < 12; n++) await session.append(exchange(n));
        return { session, other: await runtime.resume(session.id) };
      }

      it("commits its summary when only appends landed (one summarizer call)", async () => {
        const { session, other } = await busy();
        const summarizer = summarizerDuring(async () => {
          if (summarizer.calls === 1) await other.append(exchange(99));
        });
        const outcome = await compact(session, { summarizer, force: true });
        expect(outcome.status).toBe("compacted");
        expect(summarizer.calls).toBe(1);
        expect(session.view().messages.at(-1)?.id).toBe("r99");
      });

      it("is rebased, not written again, when another writer retracted something else (one summarizer call)", async () => {
        const { session, other } = await busy();
        const summarizer = summarizerDuring(async () => {
          if (summarizer.calls === 1) await other.rewrite({ mode: "retract", targets: ["r11"] });
        });
        const outcome = await compact(session, { summarizer, force: true });
        expect(outcome).toMatchObject({ status: "compacted" });
        expect(summarizer.calls).toBe(1);
        const [, summary] = (await session.history()).map((c) => c.basis.viewVersion);
        expect(summary).toBe(1); // based on the view the retraction left
      });

      it("is rebased when this same handle moved the view meanwhile, never a conflict", async () => {
        const { session } = await busy();
        const summarizer = summarizerDuring(async () => {
          if (summarizer.calls === 1) await session.rewrite({ mode: "retract", targets: ["r11"] });
        });
        expect(await compact(session, { summarizer, force: true })).toMatchObject({ status: "compacted" });
        expect(summarizer.calls).toBe(1);
      });

      it("plans again when another compaction took its messages first", async () => {
        const { session, other } = await busy();
        const first = summarizerDuring(async () => {});
        const summarizer = summarizerDuring(async () => {
          if (summarizer.calls === 1) await compact(other, { summarizer: first, force: true });
        });
        const outcome = await compact(session, { summarizer, force: true });
        expect(["compacted", "skipped"]).toContain(outcome.status);
        expect(summarizer.calls).toBe(outcome.status === "compacted" ? 2 : 1);
        const history = await session.history();
        expect(history).toHaveLength(outcome.status === "compacted" ? 2 : 1);
      });
    });
  });
}

import { setImmediate } from "node:timers/promises";
import { ConcurrencyConflict } from "@palimpsest/core";
import { describe, expect, it, vi } from "vitest";
import type { ContractContext } from "./contract-backend.ts";
import { newSessionId, started, summaryEvent, userMessage } from "./fixtures.ts";

/** Expected versions, the view-version CAS, racing writers and (PostgreSQL) the visibility barrier. */
export function concurrencyContract(ctx: ContractContext): void {
  describe("concurrency", () => {
    it("checks the expected version and reports the actual one on conflict", async () => {
      const sid = newSessionId("expected");
      const store = ctx.store();
      await expect(store.append(sid, [started()], { expectedVersion: 3 })).rejects.toMatchObject({
        code: "CONCURRENCY_CONFLICT",
        details: { sessionId: sid, subject: "stream-version", expected: 3, actual: 0 },
      });
      await store.append(sid, [started(), userMessage("m1", "x")], { expectedVersion: 0 });
      await expect(store.append(sid, [userMessage("m2", "y")], { expectedVersion: "no-stream" })).rejects.toMatchObject(
        { details: { subject: "stream-version", expected: "no-stream", actual: 2 } },
      );
      const stale = store.append(sid, [userMessage("m2", "y")], { expectedVersion: 1 });
      await expect(stale).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(stale).rejects.toMatchObject({ details: { expected: 1, actual: 2 } });
      expect((await store.append(sid, [userMessage("m2", "y")], { expectedVersion: 2 })).nextExpectedVersion).toBe(3);
      expect((await store.append(sid, [userMessage("m3", "z")], { expectedVersion: "any" })).nextExpectedVersion).toBe(
        4,
      );
      expect((await store.readStream(sid)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    });

    it("compares and sets the view version under the session lock", async () => {
      const sid = newSessionId("view");
      const store = ctx.store();
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      await store.append(sid, [userMessage("m1", "x")], { expectedVersion: 1, viewVersion: { expected: 0 } });
      expect(await store.getSession(sid)).toMatchObject({ version: 2, viewVersion: 1 });
      await expect(
        store.append(sid, [userMessage("m2", "y")], { expectedVersion: "any", viewVersion: { expected: 0 } }),
      ).rejects.toMatchObject({ details: { subject: "view-version", expected: 0, actual: 1 } });
      await store.append(sid, [userMessage("m2", "y")], { expectedVersion: "any", viewVersion: { expected: 1 } });
      expect(await store.getSession(sid)).toMatchObject({ version: 3, viewVersion: 2 });
    });

    it("moves the view version by one per compaction of the batch, in a new session's first batch too", async () => {
      const store = ctx.store();
      const messages = [started(), userMessage("a", "x"), userMessage("b", "y"), userMessage("c", "z")];
      const compactions = [summaryEvent("k1", ["a"], "s1", 0), summaryEvent("k2", ["b"], "s2", 1)];
      const first = newSessionId("view-steps-first");
      await store.append(first, [...messages, ...compactions], {
        expectedVersion: "no-stream",
        viewVersion: { expected: 0 },
      });
      const later = newSessionId("view-steps-later");
      await store.append(later, messages, { expectedVersion: "no-stream" });
      await store.append(later, compactions, { expectedVersion: 4, viewVersion: { expected: 0 } });
      for (const sid of [first, later])
        expect(await store.getSession(sid)).toMatchObject({ version: 6, viewVersion: 2 });
    });

    it("lets exactly one of two racing supersedes with the same view version commit", async () => {
      const sid = newSessionId("race");
      const [one, two] = [ctx.store(), await ctx.backend().open()];
      await one.append(sid, [started(), userMessage("m1", "x")], { expectedVersion: "no-stream" });
      for (let round = 0; round < 5; round++) {
        const outcomes = await Promise.allSettled(
          [one, two].map((store, i) =>
            store.append(sid, [userMessage(`r${round}-${i}`, "race")], {
              expectedVersion: "any",
              viewVersion: { expected: round },
            }),
          ),
        );
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
        const lost = outcomes.find((o) => o.status === "rejected");
        expect(lost?.reason).toBeInstanceOf(ConcurrencyConflict);
        expect(lost?.reason).toMatchObject({
          details: { subject: "view-version", expected: round, actual: round + 1 },
        });
      }
      expect(await one.getSession(sid)).toMatchObject({ version: 7, viewVersion: 5 });
    });

    it("keeps seq gapless under concurrent writers on separate connections", async () => {
      const sid = newSessionId("writers");
      const stores = [ctx.store(), await ctx.backend().open()];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          stores[i % 2]?.append(sid, [userMessage(`w${i}`, "x"), userMessage(`v${i}`, "y")], {
            expectedVersion: "any",
          }),
        ),
      );
      const events = await ctx.store().readStream(sid);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    });

    it("lets a global reader paging during concurrent writes see every event exactly once", async () => {
      const stores = [ctx.store(), await ctx.backend().open(), await ctx.backend().open()];
      const { checkpoint: start } = await ctx.store().readAll();
      const written = new Set<string>();
      const seen: string[] = [];
      let checkpoint = start;
      let writing = true;
      const readPage = async () => {
        const page = await ctx.store().readAll({ after: checkpoint, limit: 7 });
        seen.push(...page.events.map((e) => e.eventId));
        checkpoint = page.checkpoint;
        return page.events.length;
      };
      const reader = (async () => {
        while (writing) {
          await readPage();
          // A read of an in-process engine (SQLite) settles on microtasks alone: give the writers' I/O
          // (a keyring's files, for one) its turn, as any reader on a timer does.
          await setImmediate();
        }
      })();
      await Promise.all(
        stores.map(async (store, w) => {
          for (let i = 0; i < 15; i++) {
            const sid = newSessionId(`paging-${w}-${i}`);
            const size = 1 + Math.floor(Math.random() * 4);
            const events = [started(), ...Array.from({ length: size }, (_, k) => userMessage(`m${k}`, "x"))];
            const result = await store.append(sid, events, { expectedVersion: "no-stream" });
            for (const e of result.events) written.add(e.eventId);
          }
        }),
      );
      writing = false;
      await reader;
      await vi.waitFor(async () => {
        while ((await readPage()) > 0);
        expect(seen.filter((id) => written.has(id))).toHaveLength(written.size);
      });
      expect(new Set(seen).size).toBe(seen.length);
    });

    it("hides later commits from global readers until every earlier transaction commits", async (test) => {
      const backend = ctx.backend();
      if (backend.holdOpenAppend === undefined) {
        return test.skip("the backend has no holdOpenAppend: one writer at a time, commit order is position order");
      }
      const early = newSessionId("early");
      const late = newSessionId("late");
      const held = await backend.holdOpenAppend(early);
      await ctx.store().append(late, [started()], { expectedVersion: "no-stream" });
      const seen = async () =>
        (await ctx.store().readAll()).events
          .filter((e) => e.sessionId === early || e.sessionId === late)
          .map((e) => e.sessionId);
      expect(await seen()).toEqual([]);
      await held.commit();
      await vi.waitFor(async () => expect(await seen()).toEqual([early, late]));
    });
  });
}

import { describe, expect, it, vi } from "vitest";
import type { ContractContext } from "./contract-backend.ts";
import { newSessionId, started, userMessage } from "./fixtures.ts";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Appends and reads: envelopes, gapless seq, slices, the global log and the session catalogue. */
export function appendReadContract(ctx: ContractContext): void {
  describe("append and read", () => {
    it("returns full stored events and reads them back identically", async () => {
      const sid = newSessionId("read");
      const result = await ctx.store().append(sid, [started(), userMessage("m1", "hello")], {
        expectedVersion: "no-stream",
        metadata: { causationId: "cause-1", correlationId: "corr-1" },
      });
      expect(result.replayed).toBe(false);
      expect(result.nextExpectedVersion).toBe(2);
      const [first, second] = result.events;
      expect(first).toMatchObject({ sessionId: sid, seq: 1, type: "session.started", schemaVersion: 1 });
      expect(first).toMatchObject({ causationId: "cause-1", correlationId: "corr-1", tenantId: "default" });
      expect(first?.eventId).toMatch(UUID_V7);
      expect(Number.isNaN(Date.parse(first?.occurredAt ?? ""))).toBe(false);
      expect(second?.position).toBeGreaterThan(first?.position ?? Number.POSITIVE_INFINITY);
      expect(await ctx.store().readStream(sid)).toEqual(result.events);
    });

    it("numbers each stream gaplessly from 1 and reads seq slices", async () => {
      const sid = newSessionId("gapless");
      await ctx.store().append(sid, [started()], { expectedVersion: "no-stream" });
      for (let i = 0; i < 5; i++) {
        await ctx
          .store()
          .append(sid, [userMessage(`a${i}`, "x"), userMessage(`b${i}`, "y")], { expectedVersion: "any" });
      }
      const events = await ctx.store().readStream(sid);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
      expect((await ctx.store().readStream(sid, { fromSeq: 3, toSeq: 5 })).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect((await ctx.store().readStream(sid, { fromSeq: 10 })).map((e) => e.seq)).toEqual([10, 11]);
    });

    it("gives the global head: reading after it returns only what is committed later", async () => {
      const sid = newSessionId("head");
      const before = await ctx.store().globalHead();
      const first = await ctx.store().append(sid, [started()], { expectedVersion: "no-stream" });
      // A head taken while the first append is still hidden (an older transaction open anywhere on the
      // server) would sit before it: wait until the head covers it.
      const head = await vi.waitFor(async () => {
        const h = await ctx.store().globalHead();
        const seen = await ctx.store().readAll({ after: before, limit: 10_000 });
        expect(seen.events.some((e) => e.eventId === first.events[0]?.eventId)).toBe(true);
        expect((await ctx.store().readAll({ after: h })).events).toEqual([]);
        return h;
      });
      const { events } = await ctx.store().append(sid, [userMessage("h1", "x")], { expectedVersion: 1 });
      const later = await vi.waitFor(async () => {
        const page = await ctx.store().readAll({ after: head });
        expect(page.events.some((e) => e.eventId === events[0]?.eventId)).toBe(true);
        return page;
      });
      expect(later.events.filter((e) => e.sessionId === sid).map((e) => e.seq)).toEqual([2]);
      expect(await ctx.store().globalHead()).toBe(later.checkpoint);
    });

    it("reads an unknown session as empty and without a catalogue entry", async () => {
      const sid = newSessionId("unknown");
      expect(await ctx.store().readStream(sid)).toEqual([]);
      expect(await ctx.store().getSession(sid)).toBeUndefined();
    });

    it("reads the global log after a checkpoint, page by page, each event once", async () => {
      const a = newSessionId("global-a");
      const b = newSessionId("global-b");
      const { checkpoint: before } = await ctx.store().readAll();
      await ctx.store().append(a, [started()], { expectedVersion: "no-stream" });
      await ctx.store().append(b, [started(), userMessage("b1", "x")], { expectedVersion: "no-stream" });
      await ctx.store().append(a, [userMessage("a1", "y")], { expectedVersion: 1 });
      // PostgreSQL readers see nothing past the oldest open transaction in the cluster: wait out others'.
      const ours = await vi.waitFor(async () => {
        const { events } = await ctx.store().readAll({ after: before });
        const mine = events.filter((e) => e.sessionId === a || e.sessionId === b);
        expect(mine).toHaveLength(4);
        return mine;
      });
      expect(ours.map((e) => [e.sessionId, e.seq])).toEqual([
        [a, 1],
        [b, 1],
        [b, 2],
        [a, 2],
      ]);
      const paged: string[] = [];
      let checkpoint = before;
      for (;;) {
        const page = await ctx.store().readAll({ after: checkpoint, limit: 2 });
        expect(page.events.length).toBeLessThanOrEqual(2);
        if (page.events.length === 0) {
          expect(page.checkpoint).toBe(checkpoint);
          break;
        }
        expect(page.checkpoint).not.toBe(checkpoint);
        paged.push(...page.events.map((e) => e.eventId));
        checkpoint = page.checkpoint;
      }
      expect(new Set(paged).size).toBe(paged.length);
      expect(paged).toEqual(expect.arrayContaining(ours.map((e) => e.eventId)));
      expect((await ctx.store().readAll({ after: checkpoint })).events).toEqual([]);
    });

    it("rejects a checkpoint it did not write", async () => {
      await expect(ctx.store().readAll({ after: "not a checkpoint" })).rejects.toMatchObject({ code: "VALIDATION" });
    });

    it("keeps a catalogue of sessions with versions, newest first", async () => {
      const older = newSessionId("older");
      const newer = newSessionId("newer");
      await ctx.store().append(older, [started(), userMessage("m", "x")], { expectedVersion: "no-stream" });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await ctx.store().append(newer, [started()], { expectedVersion: "no-stream" });
      expect(await ctx.store().getSession(older)).toMatchObject({ sessionId: older, version: 2, viewVersion: 0 });
      const ids = (await ctx.store().listSessions()).map((s) => s.sessionId);
      expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(older));
      expect(ids.indexOf(newer)).toBeGreaterThanOrEqual(0);
    });

    it("tells subscribers after each committed append", async () => {
      const sid = newSessionId("notify");
      const seen: unknown[] = [];
      const unsubscribe = ctx.store().subscribe((change) => {
        if (change.sessionId === sid) seen.push(change.version);
      });
      await ctx.store().append(sid, [started()], { expectedVersion: "no-stream" });
      await ctx.store().append(sid, [userMessage("m", "x"), userMessage("n", "y")], { expectedVersion: 1 });
      unsubscribe();
      await ctx.store().append(sid, [userMessage("o", "z")], { expectedVersion: 3 });
      // A wake-up may repeat (a feed that starts listening catches up on recent commits): in order, each heard.
      expect(seen.filter((version, i) => version !== seen[i - 1])).toEqual([1, 3]);
    });

    it("says, once subscribed, when it hears other processes, and nothing more once it does", async () => {
      const unsubscribe = ctx.store().subscribe(() => {});
      try {
        await ctx.store().listening();
        expect(ctx.store().listening()).toBeUndefined();
      } finally {
        unsubscribe();
      }
    });
  });
}

import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { compactedSession, handedOffEvents, rejection } from "./handoff-fixtures.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`hand-off claims and leases (${backend.name})`, () => {
    let runtime: Palimpsest;
    /** The test clock (epoch ms) of the runtimes that take one; their hand-offs get targets of their own. */
    let now = Date.UTC(2030, 0, 1);
    const clocked = () => backend.open({ handoffClock: () => now });
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("many claimers on two connections racing for one hand-off: exactly one wins", async () => {
      const requested = await runtime.handoffs.request(await compactedSession(runtime));
      const a = await backend.open();
      const b = await backend.open();
      const claims = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (i % 2 === 0 ? a : b).handoffs.claim({ claimant: `c${i}`, leaseMs: 30_000 }),
        ),
      );
      const won = claims.filter((c) => c !== undefined);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ handoffId: requested.handoffId, attempts: 1 });
      expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({
        status: "claimed",
        claimedBy: won[0]?.claimedBy,
        attempts: 1,
      });
      if (won[0] !== undefined) await a.handoffs.fail(won[0], "test done");
    });

    it("racing claimers over several hand-offs never take one twice", async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 3; i++) ids.add((await runtime.handoffs.request(await compactedSession(runtime))).handoffId);
      const handles = [await backend.open(), await backend.open()];
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, i) => handles[i % 2]?.handoffs.claim({ claimant: `c${i}`, leaseMs: 30_000 })),
      );
      const won = claims.filter((c) => c !== undefined);
      const taken = won.map((c) => c.handoffId);
      expect(new Set(taken).size).toBe(taken.length);
      // A claimer skipped past a row another one locked may come back empty-handed; the rest stay claimable.
      for (let c = await runtime.handoffs.claim({ claimant: "late", leaseMs: 30_000 }); c !== undefined; ) {
        won.push(c);
        taken.push(c.handoffId);
        c = await runtime.handoffs.claim({ claimant: "late", leaseMs: 30_000 });
      }
      expect(new Set(taken)).toEqual(ids);
      for (const claim of won) await runtime.handoffs.fail(claim, "test done");
    });

    it("an expired lease lets a second claimer take over; the first one's renew and complete change nothing", async () => {
      const [first, second] = [await clocked(), await clocked()];
      const source = await compactedSession(runtime);
      const requested = await first.handoffs.request(source, { target: "takeover" });
      const old = await first.handoffs.claim({ claimant: "first", leaseMs: 1_000, target: "takeover" });
      if (old === undefined) throw new Error("no claim");
      now += 999;
      expect(await second.handoffs.claim({ claimant: "second", leaseMs: 1_000, target: "takeover" })).toBeUndefined();
      now += 1;
      const taken = await second.handoffs.claim({ claimant: "second", leaseMs: 5_000, target: "takeover" });
      expect(taken).toMatchObject({ handoffId: requested.handoffId, claimedBy: "second", attempts: 2 });
      expect(taken?.token).not.toBe(old.token);

      for (const attempt of [
        () => first.handoffs.renew(old, 10_000),
        () => first.handoffs.complete(old),
        () => first.handoffs.fail(old, "x"),
      ]) {
        expect(await rejection(attempt())).toMatchObject({
          code: "CLAIM_LOST",
          details: { handoffId: requested.handoffId, reason: "token-mismatch" },
        });
      }
      expect(await runtime.store.getSession(requested.successorSessionId)).toBeUndefined();
      expect(await handedOffEvents(runtime, source.id)).toEqual([]);
      expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({ status: "claimed", claimedBy: "second" });

      if (taken === undefined) throw new Error("no claim");
      const successor = await second.handoffs.complete(taken);
      expect(successor.view().messages).toEqual(source.view().messages);
    });

    it("a lease that ran out without a new claimer still fences its holder", async () => {
      const clock = await clocked();
      const requested = await clock.handoffs.request(await compactedSession(runtime), { target: "slow" });
      const claim = await clock.handoffs.claim({ claimant: "slow", leaseMs: 500, target: "slow" });
      if (claim === undefined) throw new Error("no claim");
      now += 500;
      expect(await rejection(clock.handoffs.renew(claim, 500))).toMatchObject({
        code: "CLAIM_LOST",
        details: { reason: "lease-expired", status: "claimed" },
      });
      expect(await rejection(clock.handoffs.complete(claim))).toMatchObject({ details: { reason: "lease-expired" } });
      expect(await runtime.store.getSession(requested.successorSessionId)).toBeUndefined();
      const again = await clock.handoffs.claim({ claimant: "slow", leaseMs: 500, target: "slow" });
      expect(again).toMatchObject({ handoffId: requested.handoffId, attempts: 2 });
      if (again !== undefined) await clock.handoffs.fail(again, "test done");
    });

    it("uses the database's clock by default: a real lease expires in real time", async () => {
      const requested = await runtime.handoffs.request(await compactedSession(runtime));
      const claim = await runtime.handoffs.claim({ claimant: "a", leaseMs: 100 });
      expect(claim?.handoffId).toBe(requested.handoffId);
      expect(Math.abs(Date.parse(claim?.leaseExpiresAt ?? "") - (Date.now() + 100))).toBeLessThan(5_000);
      expect(await runtime.handoffs.claim({ claimant: "b", leaseMs: 100 })).toBeUndefined();
      await new Promise((done) => setTimeout(done, 250));
      const taken = await runtime.handoffs.claim({ claimant: "b", leaseMs: 30_000 });
      expect(taken).toMatchObject({ handoffId: requested.handoffId, claimedBy: "b", attempts: 2 });
      if (taken !== undefined) await runtime.handoffs.fail(taken, "test done");
    });
  });
}

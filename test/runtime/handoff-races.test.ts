import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { beforeAppendOf, compactedSession, exchange, handedOffEvents, rejection, settled } from "./handoff-fixtures.ts";

/** Races between a hand-off's steps and the writers around it, each forced by a hook on one append. */
for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`hand-off races (${backend.name})`, () => {
    let runtime: Palimpsest;
    /** The test clock of the runtimes that take one; their hand-offs get targets of their own. */
    let now = Date.UTC(2031, 0, 1);
    const clocked = () => backend.open({ handoffClock: () => now });
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("the successor carries what the source took until the seal landed", async () => {
      const source = await compactedSession(runtime);
      const requested = await runtime.handoffs.request(source, { target: "late-writer" });
      const worker = await backend.open();
      // The source's agent writes one more exchange just before the worker's seal is appended.
      beforeAppendOf(worker, "session.handed-off", async () => {
        await (await runtime.resume(source.id)).append(exchange(99));
      });
      const claim = await worker.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: "late-writer" });
      if (claim === undefined) throw new Error("no claim");
      const successor = await worker.handoffs.complete(claim);
      const sealed = await runtime.resume(source.id);
      expect(sealed.state.handedOffTo).toBe(requested.successorSessionId);
      expect(successor.view().messages.map((m) => m.id)).toEqual(expect.arrayContaining(["u99", "r99"]));
      expect(successor.view().messages).toEqual(sealed.view().messages);
    });

    it("a direct hand-off carries what the source took until the seal landed", async () => {
      const source = await compactedSession(runtime);
      const other = await backend.open();
      beforeAppendOf(other, "session.handed-off", async () => {
        await (await runtime.resume(source.id)).append(exchange(98));
      });
      const successor = await other.handOff(await other.resume(source.id));
      expect(successor.view().messages.at(-1)?.id).toBe("r98");
      expect(successor.view().messages).toEqual((await runtime.resume(source.id)).view().messages);
    });

    it("once a completion began under its claim, the next claimer cannot fail it, only finish it", async () => {
      const [a, b] = [await clocked(), await clocked()];
      const source = await compactedSession(runtime);
      const requested = await a.handoffs.request(source, { target: "stale" });
      const claimA = await a.handoffs.claim({ claimant: "a", leaseMs: 1_000, target: "stale" });
      if (claimA === undefined) throw new Error("no claim");
      let claimB: Awaited<ReturnType<Palimpsest["handoffs"]["claim"]>>;
      let failedByB: unknown;
      // A stalls just before sealing: its lease runs out, B takes the hand-off over and tries to fail it.
      beforeAppendOf(a, "session.handed-off", async () => {
        now += 1_000;
        claimB = await b.handoffs.claim({ claimant: "b", leaseMs: 10_000, target: "stale" });
        if (claimB === undefined) throw new Error("no claim for b");
        failedByB = await settled(b.handoffs.fail(claimB, "gave up"));
      });
      // A finishes what it decided: once sealed, completed is the only end, whoever holds the claim now.
      const byA = await a.handoffs.complete(claimA);
      expect(failedByB).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "handoff-completing" } });
      expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({
        status: "completed",
        claimedBy: "b",
        attempts: 2,
      });
      if (claimB === undefined) throw new Error("no claim for b");
      const successor = await b.handoffs.complete(claimB);
      expect(successor.id).toBe(requested.successorSessionId);
      expect(byA.id).toBe(successor.id);
      expect(successor.view().messages).toEqual((await runtime.resume(source.id)).view().messages);
      expect(await handedOffEvents(runtime, source.id)).toHaveLength(1);
      expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({ status: "completed" });
    });

    it("a direct hand-off is refused while a queued one is open", async () => {
      const source = await compactedSession(runtime);
      const requested = await runtime.handoffs.request(source, { target: "direct-refused" });
      expect(await rejection(runtime.handOff(source))).toMatchObject({
        code: "INVARIANT_VIOLATED",
        details: { rule: "handoff-open", sessionId: source.id, ids: [requested.handoffId] },
      });
      expect(await handedOffEvents(runtime, source.id)).toEqual([]);
      await source.append(exchange(9));
      const claim = await runtime.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: "direct-refused" });
      if (claim === undefined) throw new Error("no claim");
      expect((await runtime.handoffs.complete(claim)).view().messages.at(-1)?.id).toBe("r9");
    });

    it("a request queued while a direct hand-off sealed the source ends failed, by complete or by fail", async () => {
      const outcomes: unknown[] = [];
      for (const finish of ["complete", "fail"] as const) {
        const source = await compactedSession(runtime);
        const direct = await backend.open();
        let requestedId = "";
        // The direct hand-off found no open request; one is queued just before its seal lands.
        beforeAppendOf(direct, "session.handed-off", async () => {
          requestedId = (await runtime.handoffs.request(source.id, { target: `overtaken-${finish}` })).handoffId;
        });
        const successor = await direct.handOff(await direct.resume(source.id));
        const claim = await runtime.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: `overtaken-${finish}` });
        if (claim === undefined) throw new Error("no claim");
        expect(claim.handoffId).toBe(requestedId);
        if (finish === "complete") {
          outcomes.push(await rejection(runtime.handoffs.complete(claim)));
        } else {
          outcomes.push(await runtime.handoffs.fail(claim, "source went elsewhere"));
        }
        expect(await runtime.handoffs.get(requestedId)).toMatchObject({ status: "failed" });
        expect(await runtime.store.getSession(claim.successorSessionId)).toBeUndefined();
        expect(await handedOffEvents(runtime, source.id)).toHaveLength(1);
        expect((await runtime.resume(source.id)).state.handedOffTo).toBe(successor.id);
      }
      expect(outcomes).toMatchObject([
        { code: "INVARIANT_VIOLATED", details: { rule: "session-handed-off" } },
        { status: "failed", failureReason: "source went elsewhere" },
      ]);
    });

    it("a request whose source is sealed while it is queued is failed at once and refused", async () => {
      const source = await compactedSession(runtime);
      const requester = await backend.open();
      const queue = requester.store.handoffQueue;
      const insert = queue.insert.bind(queue);
      let successorId = "";
      queue.insert = async (input) => {
        successorId = (await runtime.handOff(await runtime.resume(source.id))).id;
        return insert(input);
      };
      expect(await rejection(requester.handoffs.request(source.id, { target: "sealed-meanwhile" }))).toMatchObject({
        code: "INVARIANT_VIOLATED",
        details: { rule: "session-handed-off", ids: [successorId] },
      });
      const rows = (await runtime.handoffs.list()).filter((h) => h.sourceSessionId === source.id);
      expect(rows).toMatchObject([{ status: "failed" }]);
      expect(
        await runtime.handoffs.claim({ claimant: "w", leaseMs: 1_000, target: "sealed-meanwhile" }),
      ).toBeUndefined();
    });
  });
}

import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import {
  compactedSession,
  crashAfterAppendOf,
  exchange,
  handedOffEvents,
  rejection,
  settled,
} from "./handoff-fixtures.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`claimable hand-off (${backend.name})`, () => {
    let runtime: Palimpsest;
    let worker: Palimpsest;
    /** The test clock of the runtimes that take one; their hand-offs get targets of their own. */
    let now = Date.UTC(2032, 0, 1);
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
      worker = await backend.open(); // another "process": its own connections
    });
    afterAll(() => backend.dispose());

    it("goes pending → claimed → completed; the successor starts from the source's resume state", async () => {
      const source = await compactedSession(runtime);
      const requested = await runtime.handoffs.request(source, { reason: "rotation", target: "laptop" });
      expect(requested).toMatchObject({ status: "pending", sourceSessionId: source.id, attempts: 0, target: "laptop" });
      expect((await worker.handoffs.list({ status: "pending" })).map((h) => h.handoffId)).toContain(
        requested.handoffId,
      );

      const claim = await worker.handoffs.claim({ claimant: "worker-1", leaseMs: 30_000, target: "laptop" });
      expect(claim).toMatchObject({
        handoffId: requested.handoffId,
        status: "claimed",
        claimedBy: "worker-1",
        attempts: 1,
      });
      if (claim === undefined) throw new Error("unreachable");
      const renewed = await worker.handoffs.renew(claim, 60_000);
      expect(Date.parse(renewed.leaseExpiresAt)).toBeGreaterThan(Date.parse(claim.leaseExpiresAt));

      const successor = await worker.handoffs.complete(claim);
      expect(successor.id).toBe(requested.successorSessionId);
      const before = (await runtime.resume(source.id)).resumeState();
      expect(successor.view().messages).toEqual(source.view().messages);
      expect(successor.resumeState()).toMatchObject({
        liveMessages: before.liveMessages,
        liveTokens: before.liveTokens,
        lineage: { parent: { sessionId: source.id, relation: "handoff" }, handedOffTo: undefined },
        settings: { ...before.settings, parent: { sessionId: source.id, relation: "handoff" } },
      });
      expect(before.lineage.handedOffTo).toBe(successor.id);
      expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({ status: "completed", attempts: 1 });
      expect(await runtime.handoffs.list({ status: "pending" })).toEqual([]);
      expect(await worker.handoffs.claim({ claimant: "worker-2", leaseMs: 1_000 })).toBeUndefined();
      const sealed = await rejection(source.append({ role: "user", content: "too late" }));
      expect(sealed).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "session-handed-off" } });
    });

    it("finishes a completion cut short at any step exactly once", async () => {
      // Crash 1: the successor was started, nothing carried, source not sealed.
      const first = await compactedSession(runtime);
      const one = await runtime.handoffs.request(first);
      const claimOne = await worker.handoffs.claim({ claimant: "w", leaseMs: 30_000 });
      if (claimOne === undefined) throw new Error("no claim");
      await worker.startSession({
        sessionId: one.successorSessionId,
        parent: { sessionId: first.id, relation: "handoff" },
      });
      const successorOne = await worker.handoffs.complete(claimOne);
      expect(successorOne.view().messages).toEqual(first.view().messages);
      expect(await handedOffEvents(runtime, first.id)).toHaveLength(1);

      // Crash 2: everything but the row's completion happened; the lease ran out, the next claimer finishes.
      const second = await compactedSession(runtime);
      const stalled = await backend.open({ handoffClock: () => now });
      const two = await stalled.handoffs.request(second, { target: "crash" });
      const stalledClaim = await stalled.handoffs.claim({ claimant: "stalled", leaseMs: 1_000, target: "crash" });
      if (stalledClaim === undefined) throw new Error("no claim");
      crashAfterAppendOf(stalled, "session.started", "crash after starting the successor");
      expect(await settled(stalled.handoffs.complete(stalledClaim))).toMatchObject({
        message: "crash after starting the successor",
      });
      expect(await handedOffEvents(runtime, second.id)).toHaveLength(1);
      expect(await runtime.handoffs.get(two.handoffId)).toMatchObject({ status: "claimed" });
      now += 1_000;
      const clocked = await backend.open({ handoffClock: () => now });
      const claimTwo = await clocked.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: "crash" });
      expect(claimTwo).toMatchObject({ handoffId: two.handoffId, attempts: 2 });
      if (claimTwo === undefined) throw new Error("no claim");
      const successorTwo = await clocked.handoffs.complete(claimTwo);
      expect(successorTwo.view().messages).toEqual(second.view().messages);
      expect(await handedOffEvents(runtime, second.id)).toHaveLength(1);
      expect(await runtime.handoffs.get(two.handoffId)).toMatchObject({ status: "completed" });

      // A retry after the completion was recorded returns the same successor and writes nothing.
      const events = (await runtime.store.getSession(successorTwo.id))?.version;
      const again = await clocked.handoffs.complete(claimTwo);
      expect(again.id).toBe(successorTwo.id);
      expect((await runtime.store.getSession(successorTwo.id))?.version).toBe(events);
      expect(await handedOffEvents(runtime, second.id)).toHaveLength(1);
    });

    it("completed concurrently by two handles of the same claim, still one successor with one copy of the view", async () => {
      const source = await compactedSession(runtime);
      const requested = await runtime.handoffs.request(source);
      const claim = await worker.handoffs.claim({ claimant: "w", leaseMs: 30_000 });
      if (claim === undefined) throw new Error("no claim");
      const results = await Promise.all([worker.handoffs.complete(claim), runtime.handoffs.complete(claim)]);
      expect(results.map((s) => s.id)).toEqual([requested.successorSessionId, requested.successorSessionId]);
      const successor = await runtime.resume(requested.successorSessionId);
      expect(successor.view().messages).toEqual(source.view().messages);
      expect(await handedOffEvents(runtime, source.id)).toHaveLength(1);
      expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({ status: "completed", attempts: 1 });
    });

    it("refuses to hand off to an existing session that is not its successor, before sealing", async () => {
      const source = await compactedSession(runtime);
      const unrelated = await runtime.startSession({ model: "gpt-4.1" });
      expect(await rejection(runtime.handOff(source, { toSessionId: unrelated.id }))).toMatchObject({
        code: "INVARIANT_VIOLATED",
        details: { rule: "session-already-started", sessionId: unrelated.id },
      });
      expect(await handedOffEvents(runtime, source.id)).toEqual([]);
      expect((await runtime.resume(unrelated.id)).state.live).toEqual([]);
      await source.append(exchange(7));
    });

    it("a failed hand-off leaves the source writable and open to a new request", async () => {
      const source = await compactedSession(runtime);
      const requested = await runtime.handoffs.request(source, { target: "cloud" });
      const claim = await worker.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: "cloud" });
      if (claim === undefined) throw new Error("no claim");
      const failed = await worker.handoffs.fail(claim, "target platform unavailable");
      expect(failed).toMatchObject({ status: "failed", failureReason: "target platform unavailable" });
      expect(failed.leaseExpiresAt).toBeUndefined();
      await source.append(exchange(9));
      expect(source.view().messages.at(-1)?.id).toBe("r9");
      expect(await runtime.store.getSession(requested.successorSessionId)).toBeUndefined();
      const lost = await rejection(worker.handoffs.complete(claim));
      expect(lost).toMatchObject({
        code: "CLAIM_LOST",
        details: { reason: "not-claimed", status: "failed" },
      });
      expect(await runtime.handoffs.request(source)).toMatchObject({ status: "pending" });
    });

    it("claims only hand-offs addressed to the claimer's target, oldest first", async () => {
      const a = await runtime.handoffs.request(await compactedSession(runtime), { target: "gpu" });
      const b = await runtime.handoffs.request(await compactedSession(runtime), { target: "gpu" });
      expect(await worker.handoffs.claim({ claimant: "w", leaseMs: 1_000, target: "cpu" })).toBeUndefined();
      const first = await worker.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: "gpu" });
      const second = await worker.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: "gpu" });
      expect([first?.handoffId, second?.handoffId]).toEqual([a.handoffId, b.handoffId]);
      for (const claim of [first, second]) if (claim !== undefined) await worker.handoffs.fail(claim, "test done");
    });

    it("rejects bad input with stable codes and changes nothing", async () => {
      const source = await compactedSession(runtime);
      const requested = await runtime.handoffs.request(source, { target: "bad-input" });
      expect(await rejection(runtime.handoffs.request(source))).toMatchObject({
        code: "INVARIANT_VIOLATED",
        details: { rule: "handoff-open", ids: [requested.handoffId] },
      });
      expect(await rejection(runtime.handoffs.request("no-such-session"))).toMatchObject({
        code: "NOT_FOUND",
        details: { kind: "session" },
      });
      expect(await rejection(runtime.handoffs.get("no-such-handoff"))).toMatchObject({
        code: "NOT_FOUND",
        details: { kind: "handoff", id: "no-such-handoff" },
      });
      expect(await rejection(worker.handoffs.complete({ handoffId: "no-such-handoff", token: "t" }))).toMatchObject({
        code: "NOT_FOUND",
      });
      for (const leaseMs of [-5, 0, 1.5, Number.NaN]) {
        expect(await rejection(worker.handoffs.claim({ claimant: "w", leaseMs }))).toMatchObject({
          code: "VALIDATION",
        });
      }
      expect(await rejection(worker.handoffs.claim({ claimant: " ", leaseMs: 10 }))).toMatchObject({
        code: "VALIDATION",
      });
      expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({ status: "pending", attempts: 0 });

      const claim = await worker.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: "bad-input" });
      if (claim === undefined) throw new Error("no claim");
      const forged = { handoffId: claim.handoffId, token: "forged" };
      for (const attempt of [
        () => worker.handoffs.complete(forged),
        () => worker.handoffs.renew(forged, 1_000),
        () => worker.handoffs.fail(forged, "x"),
      ]) {
        expect(await rejection(attempt())).toMatchObject({
          code: "CLAIM_LOST",
          details: { handoffId: claim.handoffId, reason: "token-mismatch", status: "claimed" },
        });
      }
      expect(await rejection(worker.handoffs.renew(claim, -1))).toMatchObject({ code: "VALIDATION" });
      expect(await rejection(worker.handoffs.fail(claim, ""))).toMatchObject({ code: "VALIDATION" });
      expect(await runtime.handoffs.get(claim.handoffId)).toMatchObject({ status: "claimed", attempts: 1 });
      expect(await runtime.store.getSession(requested.successorSessionId)).toBeUndefined();

      await worker.handoffs.complete(claim);
      expect(await rejection(runtime.handoffs.request(source))).toMatchObject({
        code: "INVARIANT_VIOLATED",
        details: { rule: "session-handed-off" },
      });
    });
  });
}

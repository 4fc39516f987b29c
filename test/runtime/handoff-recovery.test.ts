import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import {
  beforeAppendOf,
  compactedSession,
  crashAfterAppendOf,
  exchange,
  handedOffEvents,
  rejection,
  settled,
} from "./handoff-fixtures.ts";

/** Hand-offs that must end, and end right: a successor id that can never start, crashes, slow completions. */
for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`hand-off recovery (${backend.name})`, () => {
    let runtime: Palimpsest;
    /** The test clock of the runtimes that take one; their hand-offs get targets of their own. */
    let now = Date.UTC(2036, 0, 1);
    const clocked = () => backend.open({ handoffClock: () => now });
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("a request refuses a successor id it could never start, and queues nothing", async () => {
      const source = await compactedSession(runtime);
      const unrelated = await runtime.startSession({ model: "gpt-4.1" });
      const refusals = [];
      for (const successorSessionId of ["", source.id, unrelated.id]) {
        refusals.push(await rejection(runtime.handoffs.request(source, { successorSessionId })));
      }
      expect(refusals).toMatchObject([
        { code: "VALIDATION" },
        { code: "VALIDATION" },
        { code: "INVARIANT_VIOLATED", details: { rule: "session-already-started", sessionId: unrelated.id } },
      ]);
      expect(await runtime.store.handoffQueue.list({ sourceSessionId: source.id })).toEqual([]);
      expect(await rejection(runtime.handOff(source, { toSessionId: "" }))).toMatchObject({ code: "VALIDATION" });
      expect(await rejection(runtime.handOff(source, { toSessionId: source.id }))).toMatchObject({
        code: "VALIDATION",
      });
      expect(await handedOffEvents(runtime, source.id)).toEqual([]);
    });

    it("a hand-off whose successor can no longer start is failed by complete, and the source stays free", async () => {
      const source = await compactedSession(runtime);
      const requested = await runtime.handoffs.request(source, { target: "taken-id" });
      // Someone starts a session of their own under the id the hand-off reserved.
      await runtime.startSession({ sessionId: requested.successorSessionId, model: "gpt-4.1" });
      const claim = await runtime.handoffs.claim({ claimant: "w", leaseMs: 30_000, target: "taken-id" });
      if (claim === undefined) throw new Error("no claim");
      expect(await rejection(runtime.handoffs.complete(claim))).toMatchObject({
        details: { rule: "session-already-started" },
      });
      const failed = await runtime.handoffs.get(requested.handoffId);
      expect(failed).toMatchObject({
        status: "failed",
        failureReason: expect.stringContaining(requested.successorSessionId),
      });
      expect(failed.completionStartedAt).toBeUndefined();
      expect(await handedOffEvents(runtime, source.id)).toEqual([]);
      await source.append(exchange(7));
      const successor = await runtime.handOff(source);
      expect(successor.view().messages).toEqual(source.view().messages);
    });

    for (const [bad, by] of [
      ["empty", "the claim that began it"],
      ["self", "the next claimer"],
    ] as const) {
      it(`a row with a bad successor id (${bad}) whose completion began is failed by ${by}`, async () => {
        const c = await clocked();
        const source = await compactedSession(runtime);
        // A row queued before request() checked the id, whose completion was already recorded as begun.
        const queue = c.store.handoffQueue.withClock(() => now);
        const target = `bad-${bad}`;
        const successorSessionId = bad === "self" ? source.id : "";
        const row = await queue.insert({ sourceSessionId: source.id, successorSessionId, target });
        const first = await queue.claim({ claimant: "old", leaseMs: 1_000, target });
        if (first === undefined) throw new Error("no claim");
        await queue.startCompletion(first);
        if (by === "the next claimer") now += 1_000;
        const claim =
          by === "the next claimer" ? await c.handoffs.claim({ claimant: "new", leaseMs: 1_000, target }) : first;
        if (claim === undefined) throw new Error("no claim");
        expect(await rejection(c.handoffs.complete(claim))).toMatchObject({ code: "VALIDATION" });
        expect(await c.handoffs.get(row.handoffId)).toMatchObject({ status: "failed", claimedBy: claim.claimedBy });
        expect(await handedOffEvents(runtime, source.id)).toEqual([]);
        expect(await runtime.handoffs.request(source.id, { target: `${target}-again` })).toMatchObject({
          status: "pending",
        });
      });
    }

    it("a successor never exists without the source's view: a crash after starting it loses nothing", async () => {
      const source = await compactedSession(runtime);
      const requested = await runtime.handoffs.request(source, { target: "crash-after-start" });
      const a = await clocked();
      const claimA = await a.handoffs.claim({ claimant: "a", leaseMs: 1_000, target: "crash-after-start" });
      if (claimA === undefined) throw new Error("no claim");
      crashAfterAppendOf(a, "session.started", "a crashed");
      expect(await settled(a.handoffs.complete(claimA))).toMatchObject({ message: "a crashed" });
      // The successor's agent, which knows the id from the row, writes to it before anyone finishes.
      const early = await runtime.resume(requested.successorSessionId);
      await early.append({ id: "hello", role: "user", content: "hello from the new process" });
      now += 1_000;
      const b = await clocked();
      const claimB = await b.handoffs.claim({ claimant: "b", leaseMs: 30_000, target: "crash-after-start" });
      if (claimB === undefined) throw new Error("no claim for b");
      const successor = await b.handoffs.complete(claimB);
      expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({ status: "completed" });
      const sourceView = (await runtime.resume(source.id)).view().messages;
      expect(successor.view().messages).toEqual([...sourceView, expect.objectContaining({ id: "hello" })]);
      // Its start and the carried view are one append.
      const log = await runtime.store.readStream(successor.id);
      expect(log.slice(0, sourceView.length + 1).map((e) => e.idempotencyKey)).toEqual(
        Array(sourceView.length + 1).fill(`handoff:${source.id}`),
      );
      expect(log[0]?.type).toBe("session.started");
    });

    it("a direct hand-off crashing on the successor's start leaves no successor, and a retry finishes it", async () => {
      const source = await compactedSession(runtime);
      const other = await backend.open();
      beforeAppendOf(other, "session.started", async () => {
        throw new Error("crashed");
      });
      const toSessionId = "direct-crash-successor";
      expect(await settled(other.handOff(await other.resume(source.id), { toSessionId }))).toMatchObject({
        message: "crashed",
      });
      expect(await runtime.store.getSession(toSessionId)).toBeUndefined();
      const successor = await runtime.handOff(await runtime.resume(source.id), { toSessionId });
      expect(successor.view().messages).toEqual(source.view().messages);
    });

    it("a completion that outlives its lease, with no one else claiming, ends completed", async () => {
      const c = await clocked();
      const source = await compactedSession(runtime);
      const requested = await c.handoffs.request(source, { target: "slow-start" });
      const claim = await c.handoffs.claim({ claimant: "slow", leaseMs: 1_000, target: "slow-start" });
      if (claim === undefined) throw new Error("no claim");
      beforeAppendOf(c, "session.started", async () => {
        now += 1_000; // the lease runs out while the successor is being started
      });
      const successor = await c.handoffs.complete(claim);
      expect(successor.view().messages).toEqual(source.view().messages);
      expect(await c.handoffs.get(requested.handoffId)).toMatchObject({ status: "completed", claimedBy: "slow" });
      expect((await c.handoffs.complete(claim)).id).toBe(successor.id);
    });

    it("a retry of a completion that began, after its lease ran out, finishes it under the same claim", async () => {
      const c = await clocked();
      const source = await compactedSession(runtime);
      const requested = await c.handoffs.request(source, { target: "retry-late" });
      const claim = await c.handoffs.claim({ claimant: "w", leaseMs: 1_000, target: "retry-late" });
      if (claim === undefined) throw new Error("no claim");
      beforeAppendOf(c, "session.handed-off", async () => {
        throw new Error("crashed before the seal");
      });
      expect(await settled(c.handoffs.complete(claim))).toMatchObject({ message: "crashed before the seal" });
      now += 5_000;
      const successor = await c.handoffs.complete(claim);
      expect(successor.id).toBe(requested.successorSessionId);
      expect(successor.view().messages).toEqual(source.view().messages);
      expect(await c.handoffs.get(requested.handoffId)).toMatchObject({ status: "completed", attempts: 1 });
    });

    it("a claim that was taken over still cannot start a completion", async () => {
      const [a, b] = [await clocked(), await clocked()];
      const source = await compactedSession(runtime);
      const requested = await a.handoffs.request(source, { target: "taken-over" });
      const claimA = await a.handoffs.claim({ claimant: "a", leaseMs: 1_000, target: "taken-over" });
      if (claimA === undefined) throw new Error("no claim");
      now += 1_000;
      const claimB = await b.handoffs.claim({ claimant: "b", leaseMs: 30_000, target: "taken-over" });
      if (claimB === undefined) throw new Error("no claim for b");
      expect(await rejection(a.handoffs.complete(claimA))).toMatchObject({ details: { reason: "token-mismatch" } });
      expect(await runtime.store.getSession(requested.successorSessionId)).toBeUndefined();
      expect((await b.handoffs.complete(claimB)).id).toBe(requested.successorSessionId);
    });
  });
}

import { IdempotencyMismatch, ValidationError } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract-backend.ts";
import { newSessionId, started, userMessage } from "./fixtures.ts";

/** Idempotent retries and validation: bad input or a reused key writes nothing. */
export function idempotencyValidationContract(ctx: ContractContext): void {
  describe("idempotency and validation", () => {
    it("returns the original result for a retry with the same key and content", async () => {
      const sid = newSessionId("idem");
      const store = ctx.store();
      const batch = [started(), userMessage("m1", "hello")];
      const first = await store.append(sid, batch, { expectedVersion: "no-stream", idempotencyKey: "k1" });
      for (const expectedVersion of ["no-stream", 0, 2, "any"] as const) {
        const retry = await store.append(sid, batch, { expectedVersion, idempotencyKey: "k1" });
        expect(retry).toEqual({ ...first, replayed: true });
      }
      const second = await store.append(sid, [userMessage("m2", "x")], { expectedVersion: 2, idempotencyKey: "k2" });
      expect(second.events.map((e) => e.idempotencyKey)).toEqual(["k2"]);
      expect((await store.append(sid, batch, { expectedVersion: 3, idempotencyKey: "k1" })).events).toEqual(
        first.events,
      );
      expect((await store.readStream(sid)).map((e) => e.seq)).toEqual([1, 2, 3]);
    });

    it("keyedBatch finds where a key's batch sits, and nothing for a key never used or another session's", async () => {
      const sid = newSessionId("keyed-batch");
      const store = ctx.store();
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      await store.append(sid, [userMessage("m1", "a"), userMessage("m2", "b")], {
        expectedVersion: 1,
        idempotencyKey: "pair",
      });
      await store.append(sid, [userMessage("m3", "c")], { expectedVersion: 3, idempotencyKey: "last" });
      expect(await store.keyedBatch(sid, "pair")).toEqual({ firstSeq: 2, lastSeq: 3 });
      expect(await store.keyedBatch(sid, "last")).toEqual({ firstSeq: 4, lastSeq: 4 });
      expect(await store.keyedBatch(sid, "never")).toBeUndefined();
      expect(await store.keyedBatch(newSessionId("keyed-other"), "pair")).toBeUndefined();
      await expect(store.keyedBatch(sid, "")).rejects.toBeInstanceOf(ValidationError);
    });

    it("rejects a reused key with different content and writes nothing", async () => {
      const sid = newSessionId("idem-mismatch");
      const store = ctx.store();
      await store.append(sid, [started()], { expectedVersion: "no-stream", idempotencyKey: "k" });
      const other = store.append(sid, [userMessage("m1", "different")], {
        expectedVersion: "any",
        idempotencyKey: "k",
      });
      await expect(other).rejects.toBeInstanceOf(IdempotencyMismatch);
      await expect(other).rejects.toMatchObject({ code: "IDEMPOTENCY_MISMATCH", details: { sessionId: sid } });
      const meta = store.append(sid, [started()], {
        expectedVersion: "any",
        idempotencyKey: "k",
        metadata: { correlationId: "another" },
      });
      await expect(meta).rejects.toBeInstanceOf(IdempotencyMismatch);
      expect(await store.readStream(sid)).toHaveLength(1);
      expect(await store.getSession(sid)).toMatchObject({ version: 1 });
    });

    it("replays once when identical retries race", async () => {
      const sid = newSessionId("idem-race");
      const stores = [ctx.store(), await ctx.backend().open()];
      const results = await Promise.all(
        stores.map((s) => s.append(sid, [started()], { expectedVersion: "any", idempotencyKey: "same" })),
      );
      expect(results.map((r) => r.replayed).sort()).toEqual([false, true]);
      expect(results[0]?.events).toEqual(results[1]?.events);
      expect(await ctx.store().readStream(sid)).toHaveLength(1);
    });

    it("rejects an invalid event with a ValidationError and stores none of the batch", async () => {
      const sid = newSessionId("invalid");
      const store = ctx.store();
      const bad = { type: "message.appended", data: { message: { id: "m", role: "robot", content: [] }, tokens: -1 } };
      const attempt = store.append(sid, [started(), bad as never], { expectedVersion: "no-stream" });
      await expect(attempt).rejects.toBeInstanceOf(ValidationError);
      // The path names the event in the batch and the field inside it.
      await expect(attempt).rejects.toMatchObject({
        code: "VALIDATION",
        details: { path: expect.stringMatching(/^events\[1\]\.message\./) },
      });
      const unknown = store.append(sid, [{ type: "no.such.event", data: {} } as never], { expectedVersion: "any" });
      await expect(unknown).rejects.toMatchObject({ code: "VALIDATION", details: { path: "events[0].type" } });
      await expect(store.append(sid, [], { expectedVersion: "any" })).rejects.toMatchObject({ code: "VALIDATION" });
      expect(await store.readStream(sid)).toEqual([]);
      expect(await store.getSession(sid)).toBeUndefined();
    });
  });
}

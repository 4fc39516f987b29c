import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract-backend.ts";
import { newSessionId, started, userMessage } from "./fixtures.ts";

/** purgeErased: rewrites what held erased content and keeps every session's log as it was, run after run. */
export function erasurePurgeContract(ctx: ContractContext): void {
  describe("purging erased content", () => {
    it("keeps every session's log, the erased one's skeleton included, and runs again alike", async () => {
      const store = ctx.store();
      const kept = newSessionId("purge-kept");
      const gone = newSessionId("purge-gone");
      await store.append(kept, [started(), userMessage("k1", "kept text")], { expectedVersion: "no-stream" });
      await store.append(gone, [started(), userMessage("g1", "erased text")], { expectedVersion: "no-stream" });
      await store.erase(gone);
      const logs = [await store.readStream(kept), await store.readStream(gone)];
      const first = await store.purgeErased();
      expect([await store.readStream(kept), await store.readStream(gone)]).toEqual(logs);
      for (const r of first.relations) {
        expect(r.bytesBefore).toBeGreaterThanOrEqual(0);
        expect(r.bytesAfter).toBeGreaterThanOrEqual(0);
        expect(r.ms).toBeGreaterThanOrEqual(0);
      }
      expect(first.ms).toBeGreaterThanOrEqual(first.waitedMs);
      const second = await store.purgeErased({ waitTimeoutMs: 30_000 });
      expect(second.relations.map((r) => r.name)).toEqual(first.relations.map((r) => r.name));
      expect([await store.readStream(kept), await store.readStream(gone)]).toEqual(logs);
      await store.append(kept, [userMessage("k2", "after the purge")], { expectedVersion: 2 });
      expect(await store.readStream(kept)).toHaveLength(3);
    });

    it("refuses bad options with VALIDATION", async () => {
      const store = ctx.store();
      await expect(store.purgeErased({ waitTimeoutMs: -5 })).rejects.toMatchObject({
        code: "VALIDATION",
        details: { path: "waitTimeoutMs" },
      });
    });
  });
}

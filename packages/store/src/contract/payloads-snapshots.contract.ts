import { randomUUID } from "node:crypto";
import { StorageError } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract-backend.ts";
import { newSessionId, started, textOf, userMessage } from "./fixtures.ts";

/** Text that breaks naive stores: emoji and ZWJ sequences, RTL, lone combining marks and surrogates, NUL. */
const ODD_TEXT = [
  "👩‍👩‍👧‍👦 🏳️‍🌈 🇯🇵",
  "\u202Eשלום עולם\u202C مرحبا",
  "\u0301\u0308 lone combining marks",
  "NUL\u0000inside\u0000",
  "lone surrogates \uD800 and \uDFFF",
  'quotes " \\ backslash \\u0000 literal',
  "\r\n\t\u2028\u2029",
].join("|");

/** Large and odd payloads round-trip exactly; snapshots; database failures become StorageError. */
export function payloadsSnapshotsContract(ctx: ContractContext): void {
  describe("payloads, snapshots and failures", () => {
    it("round-trips unusual Unicode and NUL characters exactly", async () => {
      const sid = newSessionId("unicode");
      const result = await ctx.store().append(sid, [started(), userMessage("odd", ODD_TEXT)], {
        expectedVersion: "no-stream",
      });
      const [, read] = await ctx.store().readStream(sid);
      expect(read).toBeDefined();
      expect(textOf(read ?? started())).toBe(ODD_TEXT);
      expect(read).toEqual(result.events[1]);
    });

    it("round-trips a 10 MB string exactly", async () => {
      const sid = newSessionId("large");
      const chunk = `${ODD_TEXT}${randomUUID()}`;
      const large = chunk.repeat(Math.ceil((10 * 1024 * 1024) / chunk.length)).slice(0, 10 * 1024 * 1024);
      await ctx.store().append(sid, [started(), userMessage("big", large)], { expectedVersion: "no-stream" });
      const [, read] = await ctx.store().readStream(sid);
      const text = textOf(read ?? started());
      expect(text.length).toBe(large.length);
      expect(text === large).toBe(true);
    });

    it("saves, replaces, loads and deletes snapshots", async () => {
      const sid = newSessionId("snapshot");
      const store = ctx.store();
      expect(await store.loadSnapshot(sid)).toBeUndefined();
      await store.append(sid, [started(), userMessage("m1", "hello")], { expectedVersion: "no-stream" });
      const first = {
        sessionId: sid,
        seq: 3,
        format: 1,
        state: `{"s":"${ODD_TEXT.replace(/\W/g, "")}"}`,
        checksum: "a",
      };
      // What was saved comes back; a store may add that it authenticated it (an encrypted one does).
      const loaded = async () => {
        const { authenticated, ...snapshot } = (await store.loadSnapshot(sid)) ?? {};
        expect([undefined, true]).toContain(authenticated);
        return snapshot;
      };
      await store.saveSnapshot(first);
      expect(await loaded()).toEqual(first);
      const second = { ...first, seq: 9, format: 2, state: '{"later":true}', checksum: "b" };
      await store.saveSnapshot(second);
      expect(await loaded()).toEqual(second);
      await store.deleteSnapshot(sid);
      expect(await store.loadSnapshot(sid)).toBeUndefined();
    });

    it("never replaces a snapshot with one of an earlier seq", async () => {
      const sid = newSessionId("snapshot-order");
      const store = ctx.store();
      await store.append(sid, [started(), userMessage("m1", "hello")], { expectedVersion: "no-stream" });
      const later = { sessionId: sid, seq: 9, format: 1, state: '{"later":true}', checksum: "b" };
      await store.saveSnapshot(later);
      // Another process's, queued before the later one was written: it does not go back in time.
      await store.saveSnapshot({ ...later, seq: 4, state: '{"earlier":true}', checksum: "a" });
      const { authenticated: _, ...loaded } = (await store.loadSnapshot(sid)) ?? {};
      expect(loaded).toEqual(later);
      // The same seq again (a snapshot written again, or in a new format) replaces it.
      const again = { ...later, format: 2, checksum: "c" };
      await store.saveSnapshot(again);
      const { authenticated: __, ...reloaded } = (await store.loadSnapshot(sid)) ?? {};
      expect(reloaded).toEqual(again);
    });

    it("stores no snapshot of a session it does not hold", async () => {
      const sid = newSessionId("snapshot-unknown");
      const store = ctx.store();
      await store.saveSnapshot({ sessionId: sid, seq: 2, format: 1, state: "{}", checksum: "c" });
      expect(await store.loadSnapshot(sid)).toBeUndefined();
    });

    it("wraps database failures in StorageError and keeps the cause", async () => {
      const store = await ctx.backend().open();
      await store.close();
      const failed = store.readStream(newSessionId("closed"));
      await expect(failed).rejects.toBeInstanceOf(StorageError);
      await expect(failed).rejects.toMatchObject({ code: "STORAGE", details: { operation: "readStream" } });
      await expect(failed).rejects.toHaveProperty("cause");
    });
  });
}

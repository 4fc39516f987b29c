import { describe, expect, it } from "vitest";
import { batches, type ContractContext, entries, newKey, untracked } from "./contract-context.ts";

/** append and load: deep-equal entries in append-call order, null for a key never written, durable across a reopen. */
export function appendLoadContract({ fresh }: ContractContext): void {
  describe("append and load", () => {
    it("loads entries deep-equal to what was appended, in append-call order, across several appends", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const appended = [...entries(7, "first"), untracked("a title"), ...entries(5, "second"), untracked("again")];
      for (const batch of batches(appended, 3)) await store.append(key, batch);
      expect(await store.load(key)).toEqual(appended);
    });

    it("keeps an entry's keys, null values, nested arrays and numbers as they were", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const odd = {
        type: "an-unknown-type",
        uuid: "not-even-a-uuid",
        "": "an empty key",
        "key with spaces": [[], {}, [null], -0.5, 1e21, 2 ** 53 - 1],
        zeta: { b: 1, a: 2 },
        unicode: "naïve 日本語 🧪",
      };
      await store.append(key, [odd]);
      expect(await store.load(key)).toEqual([odd]);
    });

    it("keeps an own __proto__ key as data, polluting nothing", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const entry = JSON.parse(
        '{"type":"user","uuid":"p1","__proto__":{"polluted":true},"constructor":{"prototype":1}}',
      );
      await store.append(key, [entry]);
      const [loaded] = (await store.load(key)) ?? [];
      expect(Object.hasOwn(loaded ?? {}, "__proto__")).toBe(true);
      expect(JSON.stringify(loaded)).toBe(JSON.stringify(entry));
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    });

    it("stores a batch larger than the SDK sends (2,000 entries) whole and in order", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const batch = [...entries(1999), untracked("last")];
      await store.append(key, batch);
      expect(await store.load(key)).toEqual(batch);
    });

    it("returns null for a key never written: a session, a subpath of a written session, a project", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      expect(await store.load(key)).toBeNull();
      await store.append(key, entries(2));
      expect(await store.load({ ...key, subpath: "subagents/agent-never" })).toBeNull();
      expect(await store.load({ ...key, sessionId: "another-session" })).toBeNull();
      expect(await store.load({ ...key, projectKey: "another-project" })).toBeNull();
    });

    it("stores nothing for an empty batch (a key appended [] is still never written)", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      await store.append(key, []);
      expect(await store.load(key)).toBeNull();
      expect(await store.listSessions(key.projectKey)).toEqual([]);
    });

    it("loads the same from a new store over the same database (a reopen)", async () => {
      const database = await fresh();
      const first = await database.open();
      const key = newKey();
      const sub = { ...key, subpath: "subagents/agent-a1" };
      const main = [...entries(4), untracked("t")];
      const side = entries(3, "side");
      await first.append(key, main);
      await first.append(sub, side);
      const listed = await first.listSessions(key.projectKey);
      await first.close();
      const second = await database.open();
      expect(await second.load(key)).toEqual(main);
      expect(await second.load(sub)).toEqual(side);
      expect(await second.listSessions(key.projectKey)).toEqual(listed);
      expect(await second.listSubkeys(key)).toEqual(["subagents/agent-a1"]);
    });
  });
}

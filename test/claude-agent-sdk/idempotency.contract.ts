import { describe, expect, it } from "vitest";
import { batches, type ContractContext, entries, newKey, untracked } from "./contract-context.ts";

/**
 * uuid as the idempotency key: retries and replays store nothing twice, a uuid held with other content is
 * reported; uuid-less entries come as they come (docs/claude-agent-sdk.md, "What is stored").
 */
export function idempotencyContract({ fresh }: ContractContext): void {
  describe("uuid idempotency", () => {
    it("stores a retried batch once (the same entries appended again)", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const batch = [...entries(5), untracked("t")];
      await store.append(key, batch);
      await store.append(key, batch);
      await store.append(key, structuredClone(batch));
      expect(await store.load(key)).toEqual(batch);
    });

    it("stores an importSessionToStore-style replay with other batch boundaries once", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const file = [...entries(4, "a"), untracked("title"), ...entries(6, "b")];
      for (const batch of batches(file, 3)) await store.append(key, batch);
      for (const size of [4, 5, 2, file.length])
        for (const batch of batches(file, size)) await store.append(key, batch);
      expect(await store.load(key)).toEqual(file);
    });

    it("finishes an import cut short when the whole file is replayed, each uuid once", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const file = entries(10);
      for (const batch of batches(file.slice(0, 7), 3)) await store.append(key, batch);
      for (const batch of batches(file, 4)) await store.append(key, batch);
      expect(await store.load(key)).toEqual(file);
    });

    // The SDK's contract: entries without a uuid are appended as they come. A replay cut into other batches
    // than the first time (here one line each) cannot tell them from new ones and stores them again; its
    // uuid entries stay once (docs/claude-agent-sdk.md).
    it("stores a replay in batches of one line with its uuid entries once and its uuid-less lines again", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const file = [...entries(2, "a"), untracked("title"), ...entries(2, "b"), untracked("tag")];
      for (const batch of batches(file, 1)) await store.append(key, batch);
      for (const batch of batches(file, 1)) await store.append(key, batch);
      expect(await store.load(key)).toEqual([...file, untracked("title"), untracked("tag")]);
    });

    it("appends uuid-less entries as they come: two different uuid-less batches are both stored", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      await store.append(key, [untracked("one")]);
      await store.append(key, [untracked("two")]);
      await store.append(key, [untracked("one")]);
      expect(await store.load(key)).toEqual([untracked("one"), untracked("two"), untracked("one")]);
    });

    // The SDK's contract and every reference store of its repository (in-memory, Redis, Postgres, S3,
    // MongoDB): uuid-less entries are appended without dedup, whatever came before them.
    it("stores the same uuid-less batch twice in a row twice, as the SDK's reference stores do", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const batch = [untracked("mode: plan"), untracked("tag: x")];
      await store.append(key, batch);
      await store.append(key, batch);
      expect(await store.load(key)).toEqual([...batch, ...batch]);
    });

    it("stores a uuid-less batch coming again after another batch again", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const batch = [untracked("mode: plan")];
      const other = entries(2);
      await store.append(key, batch);
      await store.append(key, other);
      await store.append(key, batch);
      expect(await store.load(key)).toEqual([...batch, ...other, ...batch]);
    });

    it("keeps the first entry of a uuid and reports one arriving with other content through onError as IDEMPOTENCY_MISMATCH", async () => {
      const reports: [unknown, unknown][] = [];
      const store = await (await fresh()).open({ onError: (error, key) => reports.push([error, key]) });
      const key = newKey();
      const [a, b, c] = entries(3);
      if (a === undefined || b === undefined || c === undefined) throw new Error("no entries");
      const changedA = { ...a, data: { label: "not what was stored first" } };
      await store.append(key, [a, b]);
      // Held with other content: passed over and reported; the batch's new entry is stored.
      await store.append(key, [changedA, c]);
      // The same content with its keys in another order is the same entry: a retry, not reported.
      const reordered = Object.fromEntries(Object.entries(b).reverse()) as typeof b;
      await store.append(key, [reordered]);
      // Twice in one batch, the second differing: the first is stored, the second reported.
      const [d] = entries(1);
      if (d === undefined) throw new Error("no entry");
      await store.append(key, [d, { ...d, type: "other" }]);
      expect(await store.load(key)).toEqual([a, b, c, d]);
      const mirrorKey = { project: key.projectKey, session: key.sessionId };
      expect(reports).toEqual([
        [
          expect.objectContaining({
            code: "IDEMPOTENCY_MISMATCH",
            details: { sessionId: key.sessionId, idempotencyKey: a.uuid },
          }),
          mirrorKey,
        ],
        [
          expect.objectContaining({
            code: "IDEMPOTENCY_MISMATCH",
            details: { sessionId: key.sessionId, idempotencyKey: d.uuid },
          }),
          mirrorKey,
        ],
      ]);
    });

    it("stores a uuid repeated inside one batch once (its first occurrence)", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const [a, b] = entries(2);
      if (a === undefined || b === undefined) throw new Error("no entries");
      await store.append(key, [a, b, a, { ...a }, b]);
      expect(await store.load(key)).toEqual([a, b]);
    });

    it("stores a batch mixing held and new uuids as its new entries only", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const list = entries(6);
      await store.append(key, list.slice(0, 3));
      await store.append(key, list.slice(1, 6));
      expect(await store.load(key)).toEqual(list);
    });

    it("keys uuids a text column cannot hold apart, each once: NUL, lone surrogates, the escape marker", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const uuids = ["a\u0000", "a", "\uD800", "\uDC00", "\uFFFD", '\u0001"a\\u0000"', "\u0001", "\uD83E\uDDEA"];
      const odd = uuids.map((uuid, i) => ({ type: "progress", uuid, i }));
      await store.append(key, odd);
      await store.append(key, odd);
      for (const entry of odd) await store.append(key, [entry]);
      expect(await store.load(key)).toEqual(odd);
    });
  });
}

import { foldSessionSummary, type SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { viewProblems } from "../support/view-invariants.ts";
import { TranscriptWriter, text } from "./claude-code-lines.ts";
import { batches, type ContractContext, entries, newKey, untracked } from "./contract-context.ts";

const uuidsOf = (list: readonly SessionStoreEntry[] | null) => (list ?? []).map((e) => e.uuid);

/** Two processes on one key, retries after a commit, and call order within one store. */
export function concurrencyContract({ fresh }: ContractContext): void {
  describe("concurrency", () => {
    it("stores every entry exactly once when two stores append batches to one key at once", async () => {
      const database = await fresh();
      const [a, b] = await Promise.all([database.open(), database.open()]);
      if (a === undefined || b === undefined) throw new Error("two stores");
      const key = newKey();
      const fromA = batches(entries(120, "a"), 6);
      const fromB = batches(entries(120, "b"), 6);
      await Promise.all(fromA.flatMap((batch, i) => [a.append(key, batch), b.append(key, fromB[i] ?? [])]));
      const loaded = await a.load(key);
      expect(loaded).toHaveLength(240);
      expect(new Set(uuidsOf(loaded)).size).toBe(240);
      // Each store's batches land in its call order; the two interleave by commit.
      const ids = uuidsOf(loaded);
      expect(ids.filter((id) => fromA.flat().some((e) => e.uuid === id))).toEqual(uuidsOf(fromA.flat()));
      expect(ids.filter((id) => fromB.flat().some((e) => e.uuid === id))).toEqual(uuidsOf(fromB.flat()));
      expect(await b.load(key)).toEqual(loaded);
    });

    it("folds the summary of a key two stores append to at once from every batch, in stored order", async () => {
      const database = await fresh();
      const [a, b] = await Promise.all([database.open(), database.open()]);
      if (a === undefined || b === undefined) throw new Error("two stores");
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      const sent = Array.from({ length: 30 }, (_, i) => [
        w.user(`prompt ${i}`),
        { type: "custom-title", customTitle: `title ${i}`, sessionId: w.sessionId },
      ]);
      await Promise.all(sent.map((batch, i) => (i % 2 === 0 ? a : b).append(key, batch)));
      const loaded = (await a.load(key)) ?? [];
      expect(loaded).toHaveLength(60);
      const [summary] = await b.listSessionSummaries(key.projectKey);
      // Each summary is folded from the one before it under the key's lock: as if folded in one go.
      expect(summary?.data).toEqual(foldSessionSummary(undefined, key, loaded, { mtime: 1 }).data);
    });

    it("stores a batch appended by both stores at once once", async () => {
      const database = await fresh();
      const [a, b] = await Promise.all([database.open(), database.open()]);
      if (a === undefined || b === undefined) throw new Error("two stores");
      const key = newKey();
      const sent = batches(entries(60), 3);
      await Promise.all(sent.flatMap((batch) => [a.append(key, batch), b.append(key, structuredClone(batch))]));
      expect(await a.load(key)).toEqual(sent.flat());
    });

    it("stores a batch retried after its first attempt committed once, from the same or another store", async () => {
      const database = await fresh();
      const a = await database.open();
      const key = newKey();
      const [first, second] = batches(entries(8), 4);
      if (first === undefined || second === undefined) throw new Error("two batches");
      // The first attempt committed but its answer was lost (a timeout): the SDK's retry comes anyway.
      await a.append(key, first);
      await a.append(key, first);
      await a.append(key, second);
      const b = await database.open();
      await b.append(key, first);
      await b.append(key, second);
      expect(await b.load(key)).toEqual([...first, ...second]);
    });

    it("persists appends called without awaiting each other in call order", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const sent = batches([...entries(50), untracked("x"), ...entries(30), untracked("y")], 1);
      await Promise.all(sent.map((batch) => store.append(key, batch)));
      expect(await store.load(key)).toEqual(sent.flat());
      const more = batches(entries(40), 4);
      const sub = { ...key, subpath: "subagents/agent-z" };
      await Promise.all(more.flatMap((batch) => [store.append(key, batch), store.append(sub, batch)]));
      expect(await store.load(key)).toEqual([...sent.flat(), ...more.flat()]);
      expect(await store.load(sub)).toEqual(more.flat());
    });

    it("folds a conversation two stores append to (and fold) at once into one valid session", async () => {
      const database = await fresh();
      const [a, b] = await Promise.all([database.open({ settleMs: 0 }), database.open({ settleMs: 0 })]);
      if (a === undefined || b === undefined) throw new Error("two stores");
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      const exchanges = Array.from({ length: 20 }, (_, i) => [
        w.user(`question ${i}`),
        w.assistant(`msg_${i}`, text(`answer ${i}`)),
      ]);
      await Promise.all(exchanges.map((batch, i) => (i % 2 === 0 ? a : b).append(key, batch)));
      await Promise.all([a.flush(), b.flush()]);
      const ids = await a.sessionIds(key);
      expect(ids).toHaveLength(1);
      expect(await b.sessionIds(key)).toEqual(ids);
      const session = await a.runtime.resume(ids[0] ?? "");
      expect(viewProblems(session, await a.runtime.store.readStream(session.id))).toEqual([]);
      const texts = session
        .view()
        .messages.map((m) => m.content.map((p) => (p.type === "text" ? p.text : "")).join(""));
      expect(texts.sort()).toEqual(
        exchanges
          .flat()
          .map((line) => textOf(line))
          .sort(),
      );
    });
  });
}

/** The text of a line TranscriptWriter wrote (a user prompt or an assistant text block). */
function textOf(line: SessionStoreEntry): string {
  const content = (line.message as { content: string | { text?: string }[] }).content;
  return typeof content === "string" ? content : content.map((b) => b.text ?? "").join("");
}

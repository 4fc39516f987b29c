import { foldSessionSummary, type SessionKey, type SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import type { PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import type { Message } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { occurrences } from "../support/database-scan.ts";
import { TranscriptWriter, text, toolResult, toolUse } from "./claude-code-lines.ts";
import { type ContractContext, entries, newKey } from "./contract-context.ts";

/** A conversation on `key` (and a subagent's beside it) whose every text holds `needle`. */
async function conversation(store: PalimpsestSessionStore, key: SessionKey, needle: string) {
  const main = new TranscriptWriter(key.sessionId);
  const lines = [
    main.user(`please look for ${needle}`),
    main.assistant("msg_1", text(`searching ${needle}`), toolUse("toolu_1", "Grep", { pattern: needle })),
    main.user([toolResult("toolu_1", `found ${needle} in a.txt`)]),
    main.assistant("msg_2", text(`it is in a.txt (${needle})`)),
  ];
  const side = new TranscriptWriter(key.sessionId);
  const sideLines = [side.user(`subagent task ${needle}`), side.assistant("msg_s1", text(`subagent done ${needle}`))];
  await store.append(key, lines);
  const sub = { ...key, subpath: "subagents/agent-s1" };
  await store.append(sub, sideLines);
  return { lines, sub, sideLines };
}

/** delete: cascades from a main key, spares other keys, erases what was folded, and a key starts afresh. */
export function deleteContract({ fresh }: ContractContext): void {
  describe("delete", () => {
    it("of a main key cascades to its subkeys", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const subs = ["subagents/agent-a", "subagents/agent-b"].map((subpath) => ({ ...key, subpath }));
      const other = { ...key, sessionId: `${key.sessionId}-kept` };
      await store.append(key, entries(3));
      for (const sub of subs) await store.append(sub, entries(2));
      const kept = entries(2);
      await store.append(other, kept);
      await store.delete(key);
      expect(await store.load(key)).toBeNull();
      for (const sub of subs) expect(await store.load(sub)).toBeNull();
      expect(await store.listSubkeys(key)).toEqual([]);
      expect((await store.listSessions(key.projectKey)).map((s) => s.sessionId)).toEqual([other.sessionId]);
      expect((await store.listSessionSummaries(key.projectKey)).map((s) => s.sessionId)).toEqual([other.sessionId]);
      expect(await store.load(other)).toEqual(kept);
    });

    it("of a subpath removes only that subkey", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const main = entries(3);
      const gone = { ...key, subpath: "subagents/agent-gone" };
      const kept = { ...key, subpath: "subagents/agent-kept" };
      const keptEntries = entries(2);
      await store.append(key, main);
      await store.append(gone, entries(2));
      await store.append(kept, keptEntries);
      const listed = await store.listSessions(key.projectKey);
      await store.delete(gone);
      expect(await store.load(gone)).toBeNull();
      expect(await store.load(key)).toEqual(main);
      expect(await store.load(kept)).toEqual(keptEntries);
      expect(await store.listSubkeys(key)).toEqual(["subagents/agent-kept"]);
      expect(await store.listSessions(key.projectKey)).toEqual(listed);
    });

    it("of an unknown key changes nothing in the database", async () => {
      const database = await fresh();
      const store = await database.open();
      const key = newKey();
      await conversation(store, key, "kept-text");
      await store.flush();
      const before = await database.dump();
      await store.delete({ ...key, sessionId: "never-written" });
      await store.delete({ ...key, subpath: "subagents/never-written" });
      await store.delete({ ...key, projectKey: "/never/written" });
      expect(await database.dump()).toEqual(before);
    });

    it("erases the Palimpsest sessions folded from the key and leaves no table holding its text", async () => {
      const database = await fresh();
      const store = await database.open();
      const key = newKey();
      const needle = `needle-${key.sessionId}`;
      const keptNeedle = `kept-${key.sessionId}`;
      const { sub } = await conversation(store, key, needle);
      const other = { ...key, sessionId: `${key.sessionId}-other` };
      await conversation(store, other, keptNeedle);
      const folded = [...(await store.sessionIds(key)), ...(await store.sessionIds(sub))];
      expect(folded.length).toBeGreaterThanOrEqual(2);
      // Plain, the tables hold the text; encrypted, none does (sealed), but the log reads it back.
      expect(occurrences(await database.dump(), needle).length > 0).toBe(!database.encrypted);
      expect((await database.eventTexts()).some((text) => text.includes(needle))).toBe(true);
      await store.delete(key);
      for (const id of folded) expect((await store.runtime.store.getSession(id))?.erasedAt).toEqual(expect.any(String));
      await store.flush();
      const after = await database.dump();
      expect(occurrences(after, needle)).toEqual([]);
      expect(occurrences(after, keptNeedle).length > 0).toBe(!database.encrypted);
      const texts = await database.eventTexts();
      expect([texts.some((t) => t.includes(needle)), texts.some((t) => t.includes(keptNeedle))]).toEqual([false, true]);
      expect(JSON.stringify(await store.load(other))).toContain(keptNeedle);
      expect(await store.sessionIds(key)).toEqual([]);
    });

    it("erases entries whose fold was still in the background when delete was called", async () => {
      const database = await fresh();
      const store = await database.open({ settleMs: 0 });
      const key = newKey();
      const needle = `racing-${key.sessionId}`;
      await conversation(store, key, needle);
      await store.delete(key);
      await store.flush();
      expect(occurrences(await database.dump(), needle)).toEqual([]);
      expect(await store.load(key)).toBeNull();
    });

    it("erases what another store is still folding when this one deletes the key", async () => {
      const database = await fresh();
      const [folding, deleting] = await Promise.all([database.open({ settleMs: 0 }), database.open()]);
      if (folding === undefined || deleting === undefined) throw new Error("two stores");
      for (let round = 0; round < 5; round++) {
        const key = newKey();
        const needle = `raced-${round}-${key.sessionId}`;
        await conversation(folding, key, needle);
        await deleting.delete(key);
        await Promise.all([folding.flush(), deleting.flush()]);
        expect(occurrences(await database.dump(), needle)).toEqual([]);
        expect(await folding.load(key)).toBeNull();
        expect(await folding.listSubkeys(key)).toEqual([]);
      }
    });

    it("leaves, after a delete racing another store's appends, exactly what load returns folded and the rest erased", async () => {
      const database = await fresh();
      const [appending, deleting] = await Promise.all([database.open({ settleMs: 0 }), database.open({ settleMs: 0 })]);
      if (appending === undefined || deleting === undefined) throw new Error("two stores");
      for (let round = 0; round < 4; round++) {
        const w = new TranscriptWriter();
        const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
        const texts = Array.from({ length: 8 }, (_, i) => [`q${i}-${w.sessionId}`, `a${i}-${w.sessionId}`]);
        const lines = texts.map(([q, a], i) => [w.user(q ?? ""), w.assistant(`msg_${i}`, text(a ?? ""))]);
        const appends = lines.map((batch) => appending.append(key, batch));
        await appends[round * 2];
        await Promise.all([...appends, deleting.delete(key)]);
        await Promise.all([appending.flush(), deleting.flush()]);
        const kept = ((await appending.load(key)) ?? []).map(lineText);
        expect(kept).toEqual(texts.flat().slice(texts.length * 2 - kept.length));
        const ids = await appending.sessionIds(key);
        const folded: string[] = [];
        for (const id of ids) {
          expect((await appending.runtime.store.getSession(id))?.erasedAt).toBeUndefined();
          folded.push(...(await appending.runtime.resume(id)).view().messages.map((m) => gist(m)));
        }
        expect(folded).toEqual(kept);
        const dump = await database.dump();
        for (const gone of texts.flat().filter((t) => !kept.includes(t))) expect(occurrences(dump, gone)).toEqual([]);
      }
    });

    it("erase reports what it did and keeps its reason in each erased session's session.erased event", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const { sub } = await conversation(store, key, "counted");
      const folded = [...(await store.sessionIds(key)), ...(await store.sessionIds(sub))];
      expect(await store.erase(key, { reason: "ticket 42" })).toEqual({ keys: 2, sessions: folded.length });
      for (const id of folded) {
        const erased = (await store.runtime.store.readStream(id)).filter((e) => e.type === "session.erased");
        expect(erased.map((e) => (e.data as { reason?: string }).reason)).toEqual(["ticket 42"]);
      }
      expect(await store.erase(key, { reason: "again" })).toEqual({ keys: 0, sessions: 0 });
      expect(await store.erase({ ...key, sessionId: "never-written" })).toEqual({ keys: 0, sessions: 0 });
    });

    it("lets the key be appended again afterwards, starting afresh under new session ids", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const { sub } = await conversation(store, key, "old");
      const erased = [...(await store.sessionIds(key)), ...(await store.sessionIds(sub))];
      const mtimeBefore = (await store.listSessions(key.projectKey))[0]?.mtime ?? 0;
      await store.delete(key);
      const again = new TranscriptWriter(key.sessionId);
      const lines = [again.user("a new start"), again.assistant("msg_9", text("fresh reply"))];
      await store.append(key, lines);
      expect(await store.load(key)).toEqual(lines);
      expect(await store.load(sub)).toBeNull();
      const [listed] = await store.listSessions(key.projectKey);
      expect(listed?.sessionId).toBe(key.sessionId);
      expect(listed?.mtime).toBeGreaterThan(mtimeBefore);
      // The summary starts afresh too: the SDK's fold of the new lines alone.
      const [summary] = await store.listSessionSummaries(key.projectKey);
      expect(summary?.data).toEqual(foldSessionSummary(undefined, key, lines, { mtime: 1 }).data);
      expect(await store.listSubkeys(key)).toEqual([]);
      const ids = await store.sessionIds(key);
      expect(ids.length).toBe(1);
      for (const id of ids) expect(erased).not.toContain(id);
      const session = await store.runtime.resume(ids[0] ?? "");
      expect(session.view().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect((await store.runtime.store.getSession(ids[0] ?? ""))?.erasedAt).toBeUndefined();
      // The old lines' uuids are new to the key's new generation: appending them again stores them.
      const old = await conversation(store, { ...key, sessionId: key.sessionId }, "old");
      expect(await store.load(key)).toEqual([...lines, ...old.lines]);
    });
  });
}

/** The text of a line TranscriptWriter wrote (a user prompt or an assistant's text blocks). */
function lineText(line: SessionStoreEntry): string {
  const content = (line.message as { content: string | { text?: string }[] }).content;
  return typeof content === "string" ? content : content.map((b) => b.text ?? "").join("");
}

/** A message's text parts joined. */
function gist(message: Message): string {
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/**
 * SQLite's pending search terms (migration 0019, sqlite-search.ts): an append writes its messages' terms
 * to plain rows, and the append whose positions reach a multiple of SEARCH_FOLD_POSITIONS moves them all
 * into the FTS5 index in its transaction; a search reads the pending rows beside the index and writes
 * nothing (it never waits for another connection's write lock); an erasure takes a session's pending terms
 * out with its indexed ones. Read beside the store with the driver, on a real file.
 */
import { searchTerms } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import { afterAll, describe, expect, it } from "vitest";
import { SEARCH_FOLD_POSITIONS } from "../../packages/store/src/engine/sqlite/sqlite-search.ts";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { Database } from "../support/sqlite-driver.ts";
import { testEngine } from "../support/test-engines.ts";

describe("SQLite search terms pending a fold", () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  /** A file store, and what its index and pending rows hold, read by a connection of their own. */
  async function fileStore(label: string) {
    const database = await testEngine("sqlite").create(label);
    drops.push(database.drop);
    const store = await openEventStore(database.url);
    const reader = new Database(database.url, { readonly: true });
    const count = (sql: string) => (reader.prepare(sql).get() as { n: number }).n;
    const tables = () => ({
      pending: count("SELECT count(*) AS n FROM message_search_pending"),
      // A contentless FTS5 table counts its rows in its docsize table.
      indexed: count("SELECT count(*) AS n FROM message_search_docsize"),
    });
    const close = async () => {
      reader.close();
      await store.close();
    };
    return { url: database.url, store, tables, close };
  }

  it("leaves terms pending until an append reaches a fold position, then folds every pending row", async () => {
    const { store, tables, close } = await fileStore("pending-fold");
    try {
      const sid = newSessionId("fold");
      // Positions 1..11: no multiple of the fold size reached.
      const first = Array.from({ length: 10 }, (_, i) => userMessage(`a${i}`, `heron note ${i}`));
      await store.append(sid, [started(), ...first], { expectedVersion: "no-stream" });
      expect(tables()).toEqual({ pending: 10, indexed: 0 });
      // Up to the position before the fold: still pending.
      const upTo = SEARCH_FOLD_POSITIONS - 1 - 11;
      const more = Array.from({ length: upTo }, (_, i) => userMessage(`b${i}`, `heron more ${i}`));
      await store.append(sid, more, { expectedVersion: 11 });
      expect(tables()).toEqual({ pending: 10 + upTo, indexed: 0 });
      // One more message lands on the fold position: everything moves to the index in that append.
      await store.append(sid, [userMessage("c", "heron last")], { expectedVersion: 11 + upTo });
      expect(tables()).toEqual({ pending: 0, indexed: SEARCH_FOLD_POSITIONS - 1 });
      await store.append(sid, [userMessage("d", "heron after")], { expectedVersion: SEARCH_FOLD_POSITIONS });
      expect(tables()).toEqual({ pending: 1, indexed: SEARCH_FOLD_POSITIONS - 1 });
    } finally {
      await close();
    }
  });

  it("finds the rows pending beside the indexed ones, writing nothing, while another connection holds the write lock", async () => {
    const { url, store: writer, tables, close } = await fileStore("pending-search");
    const searcher = await openEventStore(url);
    const locker = new Database(url);
    try {
      const sid = newSessionId("search");
      // 70 messages: the first 63 positions' are folded by the append reaching position 64, the last 8 pending.
      const messages = Array.from({ length: 70 }, (_, i) => userMessage(`m${i}`, `osprey ${i} report`));
      await writer.append(sid, [started(), ...messages], { expectedVersion: "no-stream" });
      const more = [userMessage("late", "osprey late report, the heron too")];
      await writer.append(sid, more, { expectedVersion: 71 });
      expect(tables()).toEqual({ pending: 1, indexed: 70 });
      locker.exec("BEGIN IMMEDIATE");
      const all = await searcher.searchMessages({ sessionIds: [sid], terms: searchTerms("osprey"), limit: 100 });
      expect(all).toHaveLength(71);
      // A pending row holding more of the terms ranks first; the rest by the terms held, then newest.
      const both = await searcher.searchMessages({ sessionIds: [sid], terms: searchTerms("heron osprey"), limit: 3 });
      expect(both.map((h) => h.event.seq)).toEqual([72, 71, 70]);
      expect(both[0]?.rank).toBe(2);
      locker.exec("COMMIT");
      expect(tables()).toEqual({ pending: 1, indexed: 70 });
    } finally {
      locker.close();
      await searcher.close();
      await close();
    }
  });

  it("takes an erased session's pending terms out with its indexed ones, and leaves another session's", async () => {
    const { url, store, tables, close } = await fileStore("pending-erase");
    try {
      const [kept, erased] = [newSessionId("kept"), newSessionId("erased")];
      const messages = (tag: string, n: number) =>
        Array.from({ length: n }, (_, i) => userMessage(`${tag}${i}`, `kestrel ${tag} ${i}`));
      // The erased session's first messages are folded (its append reaches the fold), its last are pending.
      await store.append(erased, [started(), ...messages("e", SEARCH_FOLD_POSITIONS)], {
        expectedVersion: "no-stream",
      });
      await store.append(erased, messages("f", 3), { expectedVersion: SEARCH_FOLD_POSITIONS + 1 });
      await store.append(kept, [started(), ...messages("k", 4)], { expectedVersion: "no-stream" });
      expect(tables()).toEqual({ pending: 7, indexed: SEARCH_FOLD_POSITIONS });
      await store.erase(erased);
      expect(tables()).toEqual({ pending: 4, indexed: 0 });
      const found = await store.searchMessages({
        sessionIds: [kept, erased],
        terms: searchTerms("kestrel"),
        limit: 100,
      });
      expect(found.map((h) => h.event.sessionId)).toEqual([kept, kept, kept, kept]);
      // What a process from before migration 0019 leaves when it erases a session: pending rows of an
      // erased session. A search passes over them, and the next fold drops them.
      const old = newSessionId("old-erasure");
      await store.append(old, [started(), ...messages("o", 3)], { expectedVersion: "no-stream" });
      const raw = new Database(url);
      raw.prepare("UPDATE sessions SET erased_at = '2026-12-06T00:00:00.000Z' WHERE session_id = ?").run(old);
      raw.close();
      const stale = await store.searchMessages({ sessionIds: [old], terms: searchTerms("kestrel"), limit: 10 });
      expect(stale).toEqual([]);
      const filler = newSessionId("filler");
      await store.append(filler, [started(), ...messages("x", SEARCH_FOLD_POSITIONS)], {
        expectedVersion: "no-stream",
      });
      expect(tables().pending).toBe(0);
      expect(tables().indexed).toBe(4 + SEARCH_FOLD_POSITIONS);
    } finally {
      await close();
    }
  });
});

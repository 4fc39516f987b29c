/**
 * An erasure on SQLite takes the erased messages' terms out of the FTS5 index's pages, not only out of
 * its answers (sqlite-search.ts): no byte of the index's tables holds one, and fts5vocab lists none. Migration 0022 does the same for the terms a table
 * made by the 0018 of earlier releases kept after their sessions were erased. Read beside the store with
 * the driver, on a real file.
 */
import { searchTerms } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import { afterAll, describe, expect, it } from "vitest";
import { SEARCH_FOLD_POSITIONS, sessionTerm } from "../../packages/store/src/engine/sqlite/sqlite-search.ts";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { Database } from "../support/sqlite-driver.ts";
import { testEngine } from "../support/test-engines.ts";

/** How 0018 made the index before 0022: a contentless_delete table, whose deletes only mark the row. */
const TABLE_BEFORE_0022 = `CREATE VIRTUAL TABLE message_search USING fts5(terms, content='', contentless_delete=1,
  tokenize="unicode61 remove_diacritics 0 tokenchars '._-'")`;

describe("SQLite search index under erasure", () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  async function fileDatabase(label: string) {
    const database = await testEngine("sqlite").create(label);
    drops.push(database.drop);
    return database.url;
  }

  /** What the index holds, read by a connection of its own: its terms (fts5vocab) and its tables' bytes. */
  function indexOf(url: string) {
    const reader = new Database(url);
    reader.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, message_search, 'row')");
    const terms = new Set(
      (reader.prepare("SELECT term FROM temp.vocab").all() as { term: string }[]).map((r) => r.term),
    );
    const bytes = ["message_search_data", "message_search_idx"]
      .flatMap((table) => reader.prepare(`SELECT * FROM ${table}`).raw().all() as unknown[][])
      .flat()
      .map((value) => (value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : String(value)))
      .join("\n");
    reader.prepare("INSERT INTO message_search (message_search) VALUES ('integrity-check')").run();
    reader.close();
    return { terms, bytes };
  }

  /**
   * A term of a session's message `i`, `<tag><i>s<tag><i>end`: FTS5 stores a term after the prefix it
   * shares with the term before it, at most `<tag><i>`, so its tail `s<tag><i>end` (no other term holds it)
   * is in the pages whole wherever the term is.
   */
  const secret = (tag: string, i: number) => `${tag}${i}s${tag}${i}end`;
  const tail = (term: string) => term.slice(term.indexOf("s", 3));
  const messages = (tag: string, n: number) =>
    Array.from({ length: n }, (_, i) => userMessage(`${tag}${i}`, `kestrel ${secret(tag, i)} in app.ts`));
  const secrets = (tag: string, n: number) => Array.from({ length: n }, (_, i) => secret(tag, i));

  it("takes an erased session's terms out of the index's pages, folded or pending, and keeps another's", async () => {
    const url = await fileDatabase("erase-pages");
    const store = await openEventStore(url);
    try {
      const [kept, erased] = [newSessionId("kept"), newSessionId("erased")];
      // Both sessions' first messages are folded together, by the kept session's append reaching the fold
      // (so the erased session's rows share the index's segment with the kept ones); the last are pending.
      await store.append(erased, [started(), ...messages("era", 20)], { expectedVersion: "no-stream" });
      await store.append(kept, [started(), ...messages("kpa", SEARCH_FOLD_POSITIONS)], {
        expectedVersion: "no-stream",
      });
      await store.append(erased, messages("erb", 3), { expectedVersion: 21 });
      await store.append(kept, messages("kpb", 2), { expectedVersion: SEARCH_FOLD_POSITIONS + 1 });
      const before = indexOf(url);
      for (const term of [...secrets("era", 5), sessionTerm(erased)]) expect(before.terms).toContain(term);

      await store.erase(erased);
      const after = indexOf(url);
      const erasedTerms = [...secrets("era", 20), ...secrets("erb", 3), sessionTerm(erased)];
      expect(erasedTerms.filter((t) => after.terms.has(t))).toEqual([]);
      expect(erasedTerms.filter((t) => after.bytes.includes(t.startsWith("zs") ? t.slice(-16) : tail(t)))).toEqual([]);
      for (const term of [...secrets("kpa", SEARCH_FOLD_POSITIONS), sessionTerm(kept)]) {
        expect(after.terms).toContain(term);
      }
      const found = await store.searchMessages({
        sessionIds: [kept, erased],
        terms: searchTerms("kestrel"),
        limit: 100,
      });
      expect(found.map((h) => h.event.sessionId)).toEqual(Array(SEARCH_FOLD_POSITIONS + 2).fill(kept));
      // The index goes on taking appends and erasures.
      const other = newSessionId("other");
      await store.append(other, [started(), ...messages("oth", SEARCH_FOLD_POSITIONS)], {
        expectedVersion: "no-stream",
      });
      await store.erase(kept);
      const last = indexOf(url);
      expect([...secrets("kpa", SEARCH_FOLD_POSITIONS), sessionTerm(kept)].filter((t) => last.terms.has(t))).toEqual(
        [],
      );
      expect(last.terms).toContain(secret("oth", 7));
    } finally {
      await store.close();
    }
  });

  it("deletes from the index only the rows it holds: erasing a session whose terms are all pending leaves its figures as they were", async () => {
    const url = await fileDatabase("pending-only");
    const store = await openEventStore(url);
    try {
      const [folded, pending] = [newSessionId("folded"), newSessionId("pending")];
      await store.append(folded, [started(), ...messages("fld", SEARCH_FOLD_POSITIONS)], {
        expectedVersion: "no-stream",
      });
      await store.append(pending, [started(), ...messages("pnd", 3)], { expectedVersion: "no-stream" });
      // The index's row count and token totals (BM25's averages, FTS5's record 1) and its rows' sizes: a
      // delete of a row it does not hold would lower them.
      const figures = () => {
        const reader = new Database(url, { readonly: true });
        const averages = reader.prepare("SELECT block FROM message_search_data WHERE id = 1").get() as {
          block: Uint8Array;
        };
        const rows = reader.prepare("SELECT count(*) AS n FROM message_search_docsize").get();
        reader.close();
        return { averages: Buffer.from(averages.block).toString("hex"), rows };
      };
      const before = figures();
      await store.erase(pending);
      expect(figures()).toEqual(before);
      await store.erase(folded);
      expect(figures()).not.toEqual(before);
    } finally {
      await store.close();
    }
  });

  it("the purge merges the index: no key between its pages, nor ANALYZE's sample of one, keeps a prefix of an erased word", async () => {
    const url = await fileDatabase("purge-keys");
    const store = await openEventStore(url);
    try {
      // Many words to a message, two sessions' messages alternating: the index's segments span pages,
      // whose separating keys (message_search_idx) are prefixes of both sessions' words.
      const wordy = (tag: string, i: number) =>
        userMessage(
          `${tag}${i}`,
          Array.from({ length: 40 }, (_, w) => `${tag}w${w}x${i}q${(i * 7919 + w * 104729) % 1000003}`).join(" "),
        );
      const [kept, erased, last] = [newSessionId("kept"), newSessionId("erased"), newSessionId("last")];
      for (const id of [kept, erased, last]) await store.append(id, [started()], { expectedVersion: "no-stream" });
      for (let i = 0; i < 2 * SEARCH_FOLD_POSITIONS; i++) {
        await store.append(kept, [wordy("kpa", i)], { expectedVersion: i + 1 });
        await store.append(erased, [wordy("era", i)], { expectedVersion: i + 1 });
        await store.append(last, [wordy("lst", i)], { expectedVersion: i + 1 });
      }
      const read = (sql: string, tag: string) => {
        const reader = new Database(url, { readonly: true });
        const values = (reader.prepare(sql).raw().all() as [Uint8Array][]).map(([v]) =>
          Buffer.from(v).toString("latin1"),
        );
        reader.close();
        return values.filter((v) => v.includes(tag));
      };
      const keys = (tag = "era") => read("SELECT term FROM message_search_idx", tag);
      // ANALYZE (which `PRAGMA optimize` may run) keeps sample keys of every index: prefixes of words here.
      const samples = () => read("SELECT sample FROM sqlite_stat4 WHERE tbl = 'message_search_idx'", "era");
      const analyze = () => {
        const writer = new Database(url);
        writer.exec("ANALYZE");
        writer.close();
      };
      analyze();
      expect(keys().length).toBeGreaterThan(0);
      expect(samples().length).toBeGreaterThan(0);
      await store.erase(erased);
      expect(samples()).toEqual([]);
      // Sampled again after the erasure: the keys an erasure leaves (prefixes) are sampled, and purged.
      analyze();
      await store.purgeErased();
      expect(keys()).toEqual([]);
      expect(samples()).toEqual([]);
      expect(indexOf(url).terms).toContain(`kpaw7x3q${(3 * 7919 + 7 * 104729) % 1000003}`);
      const found = await store.searchMessages({ sessionIds: [kept], terms: ["kpaw0x5q39595"], limit: 10 });
      expect(found.map((h) => h.event.seq)).toEqual([7]);
      // Again with nothing appended in between: the purge left the index one segment, whose keys FTS5's
      // merge alone would leave as they are.
      expect(keys("kpa").length).toBeGreaterThan(0);
      await store.erase(kept);
      await store.purgeErased();
      expect(keys("kpa")).toEqual([]);
      expect(keys("lst").length).toBeGreaterThan(0);
      const left = await store.searchMessages({ sessionIds: [kept, last], terms: ["lstw0x5q39595"], limit: 10 });
      expect(left.map((h) => [h.event.sessionId, h.event.seq])).toEqual([[last, 7]]);
    } finally {
      await store.close();
    }
  });

  it("migration 0022 makes the index again without the terms an earlier release's erasures left in it", async () => {
    const url = await fileDatabase("remake");
    const raw = new Database(url);
    let store = await openEventStore(url);
    try {
      // The index as an earlier release made it, before the sessions' first append.
      raw.exec("DROP TABLE message_search");
      raw.exec(TABLE_BEFORE_0022);
      raw.exec("INSERT INTO message_search (message_search, rank) VALUES ('secure-delete', 1)");
      const [kept, erased] = [newSessionId("kept"), newSessionId("erased")];
      // Folded together, as above, and the kept session's last messages pending.
      await store.append(erased, [started(), ...messages("era", 20)], { expectedVersion: "no-stream" });
      await store.append(kept, [started(), ...messages("kpa", SEARCH_FOLD_POSITIONS)], {
        expectedVersion: "no-stream",
      });
      await store.append(kept, messages("kpb", 2), { expectedVersion: SEARCH_FOLD_POSITIONS + 1 });
      // What that release's erasure did to the index: its rows deleted (marked, on that table).
      raw
        .prepare("DELETE FROM message_search WHERE rowid IN (SELECT position FROM events WHERE session_id = ?)")
        .run(erased);
      raw
        .prepare(
          "DELETE FROM message_search_pending WHERE position IN (SELECT position FROM events WHERE session_id = ?)",
        )
        .run(erased);
      raw.prepare("UPDATE sessions SET erased_at = '2026-12-06T00:00:00.000Z' WHERE session_id = ?").run(erased);
      // fts5vocab passes over a marked row's terms, but they are in the pages.
      expect(indexOf(url).terms).not.toContain(secret("era", 7));
      expect(indexOf(url).bytes).toContain(tail(secret("era", 7)));
      await store.close();
      raw.prepare("DELETE FROM kysely_migration WHERE name = '0022_search_secure_delete'").run();

      store = await openEventStore(url);
      const after = indexOf(url);
      expect(secrets("era", 20).filter((t) => after.bytes.includes(tail(t)))).toEqual([]);
      expect(after.terms).not.toContain(sessionTerm(erased));
      for (const term of [...secrets("kpa", SEARCH_FOLD_POSITIONS), ...secrets("kpb", 2), sessionTerm(kept)]) {
        expect(after.terms).toContain(term);
      }
      expect(raw.prepare("SELECT count(*) AS n FROM message_search_pending").get()).toEqual({ n: 0 });
      const found = await store.searchMessages({ sessionIds: [kept], terms: searchTerms(secret("kpa", 3)), limit: 10 });
      expect(found.map((h) => h.event.seq)).toEqual([5]);
      // An erasure on the table made again takes its terms out too.
      await store.erase(kept);
      const kept2 = [...secrets("kpa", SEARCH_FOLD_POSITIONS), ...secrets("kpb", 2)];
      expect(kept2.filter((t) => indexOf(url).bytes.includes(tail(t)))).toEqual([]);
    } finally {
      raw.close();
      await store.close();
    }
  });
});

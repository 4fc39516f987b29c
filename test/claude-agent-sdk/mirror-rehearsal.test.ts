/**
 * MirrorLog.rehearseFirstAppend, which openSessionStore runs at open: a key's first append (its row read
 * and made, the entries written on it by the quick path, the summary folded) in a transaction rolled
 * back. On a SQLite file and on PostgreSQL, plain and encrypting: it runs the append's statements and fold,
 * leaves the database as it was (no row, no entry, no data key), and the key's real first append after it
 * starts from nothing. On PostgreSQL a lock held elsewhere fails it rather than stalling it.
 */
import { readdir } from "node:fs/promises";
import { type MirrorKey, StorageError } from "@palimpsest/core";
import { type MirrorEntryInput, MirrorLog, type MirrorSummarize, openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { dumpDatabase } from "../support/database-scan.ts";
import { watchPgStatements, watchSqliteStatements } from "../support/statement-watch.ts";
import { testEngines } from "../support/test-engines.ts";
import { testKeyring } from "../support/test-keyring.ts";

/** Entries with uuids `${prefix}-${i}`. */
const entries = (prefix: string, count: number): MirrorEntryInput[] =>
  Array.from({ length: count }, (_, i) => ({
    uuid: `${prefix}-${i}`,
    text: JSON.stringify({ uuid: `${prefix}-${i}` }),
  }));

/** A summary listing every uuid folded into it, counting its calls in `folds`. */
function listing(folds: { count: number }): MirrorSummarize {
  return (previous, stored) => {
    folds.count += 1;
    return JSON.stringify([
      ...(previous === null ? [] : (JSON.parse(previous) as string[])),
      ...stored.map((e) => e.uuid),
    ]);
  };
}

/** The SQL of each statement the engine's driver runs from the call on, as of each call of the returned function. */
function watchStatements(engine: string): () => string[] {
  if (engine === "postgres") {
    const seen = watchPgStatements();
    return () => seen;
  }
  const seen = watchSqliteStatements();
  return () => seen.map((s) => s.sql);
}

describe("MirrorLog.rehearseFirstAppend", () => {
  afterEach(() => vi.restoreAllMocks());

  for (const engine of testEngines()) {
    for (const encrypted of [false, true]) {
      const test = engine.skip === undefined ? it : it.skip;
      const name = `${engine.name}, ${encrypted ? "encrypted" : "plain"}`;

      test(`runs a key's first append and writes nothing; the real one after it starts from nothing (${name})`, async () => {
        const database = await engine.create(`mirror_rehearsal_${encrypted ? "enc" : "plain"}`);
        const keys = encrypted ? await testKeyring() : undefined;
        const store = await openEventStore(database.url, keys === undefined ? {} : { keyring: keys.keyring });
        try {
          const log = new MirrorLog(store);
          const folds = { count: 0 };
          await log.append({ project: "p", session: "kept" }, entries("kept", 2), listing(folds));
          const before = await dumpDatabase(store);
          const keyFiles = keys === undefined ? [] : await readdir(keys.directory, { recursive: true });
          const rehearsed: MirrorKey = { project: "p", session: "rehearsed" };
          folds.count = 0;
          const seen = watchStatements(engine.name);
          await log.rehearseFirstAppend(rehearsed, entries("made-up", 3), listing(folds));
          await log.rehearseFirstAppend(rehearsed, entries("made-up", 3), listing(folds)); // again: nothing stayed
          const statements = seen();
          vi.restoreAllMocks();
          expect(folds.count).toBe(2); // the summary was folded each time
          expect(statements.filter((s) => /insert into "?mirror_keys"?/i.test(s))).toHaveLength(2);
          expect(statements.filter((s) => /insert into "?mirror_entries"?/i.test(s)).length).toBeGreaterThanOrEqual(2);
          expect(await dumpDatabase(store)).toEqual(before);
          if (keys !== undefined) expect(await readdir(keys.directory, { recursive: true })).toEqual(keyFiles);
          expect(await log.key(rehearsed)).toBeUndefined();

          const real = entries("real", 2);
          expect(await log.append(rehearsed, real, listing(folds))).toMatchObject({ stored: 2, nextSeq: 2 });
          expect(await log.entries(rehearsed, 0)).toEqual(real.map((e) => e.text));
          expect(JSON.parse((await log.key(rehearsed))?.summary ?? "null")).toEqual(["real-0", "real-1"]);
        } finally {
          await store.close();
          await database.drop();
          await keys?.dispose();
        }
      });
    }
  }

  const postgres = testEngines().find((e) => e.name === "postgres");
  it.skipIf(postgres?.skip !== undefined)(
    "fails rather than waits while another connection holds the key table's lock (postgres)",
    async () => {
      if (postgres === undefined) return;
      const database = await postgres.create("mirror_rehearsal_lock");
      const store = await openEventStore(database.url);
      const other = new pg.Client({ connectionString: database.url });
      try {
        const log = new MirrorLog(store);
        await other.connect();
        await other.query("BEGIN");
        await other.query("LOCK TABLE mirror_keys IN EXCLUSIVE MODE");
        await expect(
          log.rehearseFirstAppend({ project: "p", session: "locked" }, entries("made-up", 1)),
        ).rejects.toBeInstanceOf(StorageError);
        await other.query("ROLLBACK");
        expect(await log.append({ project: "p", session: "locked" }, entries("after", 1))).toMatchObject({ stored: 1 });
      } finally {
        await other.end();
        await store.close();
        await database.drop();
      }
    },
  );
});

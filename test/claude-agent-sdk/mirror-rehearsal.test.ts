/**
 * MirrorLog.rehearseFirstAppend, which openSessionStore runs at open: a key's first append (its row read
 * and made, the entries written on it by the quick path, the summary folded) in a transaction rolled
 * back. On a SQLite file and on PostgreSQL, plain and encrypting: it runs the append's statements and fold,
 * leaves the database as it was (no row, no entry, no data key), and the key's real first append after it
 * starts from nothing. Writes the process makes meanwhile all land (none inside the rolled-back
 * transaction). A lock held elsewhere fails it rather than stalling it.
 */
import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { type MirrorKey, StorageError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { type MirrorEntryInput, MirrorLog, type MirrorSummarize, openEventStore } from "@palimpsest/store";
import { afterEach, describe, expect, it, vi } from "vitest";
import { APP_GRANTS } from "../support/app-role-grants.ts";
import { dumpDatabase } from "../support/database-scan.ts";
import { whileLocked } from "../support/held-lock.ts";
import { runStatements, urlAs } from "../support/postgres-roles.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
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
          // The summary was folded each time: plain, by the new key's write and by a resumed key's after it.
          expect(folds.count).toBe(keys === undefined ? 4 : 2);
          expect(statements.filter((s) => /insert into "?mirror_keys"?/i.test(s))).toHaveLength(2);
          // A resumed key's guard is rehearsed too (the encrypted path's new key writes on the row it made).
          expect(statements.filter((s) => /update "?mirror_keys"?/i.test(s))).toHaveLength(2);
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

  for (const engine of testEngines()) {
    const test = engine.skip === undefined ? it : it.skip;
    test(`the process's writes made meanwhile all land (${engine.name})`, async () => {
      const database = await engine.create("mirror_rehearsal_meanwhile");
      const store = await openEventStore(database.url);
      try {
        const log = new MirrorLog(store);
        const runtime = new Palimpsest({ store, counterFor: createTokenCounter });
        const started = await Promise.all([
          log.rehearseFirstAppend({ project: "p", session: "rehearsed" }, entries("made-up", 3)),
          ...Array.from({ length: 20 }, () => runtime.startSession({ model: "gpt-4o" })),
          ...Array.from({ length: 5 }, (_, i) =>
            log.append({ project: "p", session: `real-${i}` }, entries(`r${i}`, 2)),
          ),
        ]);
        const sessions = started.flatMap((s) => (s instanceof Object && "id" in s ? [s.id] : []));
        expect(sessions).toHaveLength(20);
        expect((await store.listSessions()).map((s) => s.sessionId).sort()).toEqual([...sessions].sort());
        for (let i = 0; i < 5; i++)
          expect(await log.entries({ project: "p", session: `real-${i}` }, 0)).toHaveLength(2);
      } finally {
        await store.close();
        await database.drop();
      }
    });
  }

  for (const engine of testEngines()) {
    const test = engine.skip === undefined ? it : it.skip;
    test(`fails rather than waits while another connection holds a lock it needs (${engine.name})`, async () => {
      const database = await engine.create("mirror_rehearsal_lock");
      const store = await openEventStore(database.url);
      const key = { project: "p", session: "locked" };
      try {
        const log = new MirrorLog(store);
        await whileLocked(engine.name, database.url, "mirror_keys", () =>
          expect(log.rehearseFirstAppend(key, entries("made-up", 1))).rejects.toBeInstanceOf(StorageError),
        );
        expect(await log.append(key, entries("after", 1))).toMatchObject({ stored: 1 });
      } finally {
        await store.close();
        await database.drop();
      }
    });
  }

  const server = postgresServer();
  it.skipIf("skip" in server)(
    "runs as a PostgreSQL application role under row-level security, for its tenant, writing nothing",
    async () => {
      if ("skip" in server) return;
      const database = await createScratchDatabase(server.url, "mirror_rehearsal_role");
      const app = `palimpsest_mirror_app_${randomUUID().slice(0, 8)}`;
      try {
        await (await openEventStore(database.url)).close(); // the owner migrates
        await runStatements(
          database.url,
          `CREATE ROLE ${app} LOGIN NOSUPERUSER NOBYPASSRLS`,
          ...APP_GRANTS.map((grant) => grant.replace("{role}", app)),
        );
        const store = await openEventStore(urlAs(database.url, app, "acme"), { tenant: "acme" });
        try {
          const log = new MirrorLog(store);
          const key = { project: "p", session: "tenant" };
          await log.append({ project: "p", session: "kept" }, entries("kept", 2));
          const before = await dumpDatabase(store);
          const seen = watchPgStatements();
          await log.rehearseFirstAppend(key, entries("made-up", 2), listing({ count: 0 }));
          // The new key's write, then a resumed key's.
          expect(seen.filter((sql) => /insert into "?mirror_entries"?/i.test(sql))).toHaveLength(2);
          vi.restoreAllMocks();
          expect(await dumpDatabase(store)).toEqual(before);
          expect(await log.append(key, entries("real", 1))).toMatchObject({ stored: 1, nextSeq: 1 });
        } finally {
          await store.close();
        }
      } finally {
        await database.drop();
        await runStatements(server.url, `DROP ROLE IF EXISTS ${app}`);
      }
    },
  );
});

/**
 * The mirror's quick append (quickAppend), on a SQLite file and on PostgreSQL, plain and encrypting with a
 * local keyring: the write alone on the key's row as the log last left it (PostgreSQL: one statement; two
 * from a log that never wrote the key, the row read first); when another process appended to or dropped
 * the key since, the compare-and-set changes nothing and the row is read again; when a uuid of the batch
 * is held (a retry, or the other process stored it), the insert fails, nothing is written, and the locked
 * path dedups. Every entry is stored once, in commit order, the summary folded from every batch. On
 * PostgreSQL, statements are counted, and the other writer let in between a read and its write, by
 * wrapping pg's `Client.query` (the real driver and server underneath).
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Keyring, MirrorKey } from "@palimpsest/core";
import {
  type MirrorEntryInput,
  MirrorLog,
  type MirrorSummarize,
  type OpenedEventStore,
  openEventStore,
} from "@palimpsest/store";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { mirrorKeyName } from "../../packages/store/src/mirror/mirror-seal.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { watchPgStatements, watchSqliteStatements } from "../support/statement-watch.ts";
import { type TestKeyring, testKeyring } from "../support/test-keyring.ts";

const server = postgresServer();

/** Entries with uuids `${prefix}-${i}`. */
const entries = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    uuid: `${prefix}-${i}`,
    text: JSON.stringify({ uuid: `${prefix}-${i}` }),
  }));

/** A summary listing every uuid folded into it, in order. */
const listUuids: MirrorSummarize = (previous, stored) =>
  JSON.stringify([...(previous === null ? [] : (JSON.parse(previous) as string[])), ...stored.map((e) => e.uuid)]);

/** An engine the tests run on: a fresh database (its URL) and how to drop it. */
interface Backend {
  name: "sqlite" | "postgres";
  skip: boolean;
  create(): Promise<ScratchDatabase>;
}

const backends: Backend[] = [
  {
    name: "sqlite",
    skip: false,
    async create() {
      const dir = await mkdtemp(join(tmpdir(), "palimpsest-mirror-quick-"));
      return { url: join(dir, "store.db"), drop: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: "postgres",
    skip: "skip" in server,
    create: () =>
      "skip" in server ? Promise.reject(new Error(server.skip)) : createScratchDatabase(server.url, "mirrorquick"),
  },
];

for (const backend of backends) {
  for (const encrypted of [false, true]) {
    describe.skipIf(backend.skip)(`mirror quick append (${backend.name}, ${encrypted ? "encrypted" : "plain"})`, () => {
      let database: ScratchDatabase;
      let keys: TestKeyring | undefined;
      const opened: OpenedEventStore[] = [];
      const open = async () => {
        const keyring: Keyring | undefined = keys?.keyring;
        const store = await openEventStore(database.url, keyring === undefined ? {} : { keyring });
        opened.push(store);
        return new MirrorLog(store);
      };
      beforeAll(async () => {
        database = await backend.create();
        keys = encrypted ? await testKeyring() : undefined;
      });
      afterEach(() => vi.restoreAllMocks());
      afterAll(async () => {
        for (const store of opened) await store.close();
        await database?.drop();
        await keys?.dispose();
      });

      it("appends on the row it left and after another process appended to the key, every entry once", async () => {
        const [log, other] = [await open(), await open()];
        const key: MirrorKey = { project: "p", session: `across-${encrypted}` };
        await log.append(key, entries("first", 3), listUuids);
        await log.append(key, entries("second", 2), listUuids);
        await other.append(key, entries("theirs", 2), listUuids);
        expect(await log.append(key, entries("third", 2), listUuids)).toMatchObject({ stored: 2, nextSeq: 9 });
        const stored = ["first", "second", "theirs", "third"].flatMap((p) => entries(p, p === "first" ? 3 : 2));
        expect(await other.entries(key, 0)).toEqual(stored.map((e) => e.text));
        expect(JSON.parse((await other.key(key))?.summary ?? "null")).toEqual(stored.map((e) => e.uuid));
      });

      it("passes over a retried batch, reporting an entry held with other content, and appends on after it", async () => {
        const log = await open();
        const key: MirrorKey = { project: "p", session: `retry-${encrypted}` };
        const batch = entries("once", 3);
        await log.append(key, batch, listUuids);
        const changed = [batch[0], { uuid: "once-1", text: JSON.stringify({ uuid: "once-1", other: true }) }, batch[2]];
        const result = await log.append(key, changed as MirrorEntryInput[], listUuids);
        expect(result).toMatchObject({ stored: 0, nextSeq: 3, mismatched: [1] });
        expect(await log.append(key, entries("after", 1), listUuids)).toMatchObject({ stored: 1, nextSeq: 4 });
        const stored = [...batch, ...entries("after", 1)];
        expect(await log.entries(key, result.generation)).toEqual(stored.map((e) => e.text));
        expect(JSON.parse((await log.key(key))?.summary ?? "null")).toEqual(stored.map((e) => e.uuid));
      });

      it("appends to a key dropped by another process in its next generation, nothing in the one it left", async () => {
        const [log, other] = [await open(), await open()];
        const key: MirrorKey = { project: "p", session: `dropped-${encrypted}` };
        await log.append(key, entries("before", 2), listUuids);
        await other.drop(key);
        const result = await log.append(key, entries("after", 2), listUuids);
        expect(result).toMatchObject({ stored: 2, generation: 1, nextSeq: 2 });
        expect(await log.entries(key, 0)).toEqual([]);
        expect(await log.entries(key, 1)).toEqual(entries("after", 2).map((e) => e.text));
        expect(JSON.parse((await log.key(key))?.summary ?? "null")).toEqual(["after-0", "after-1"]);
      });
      it("answers an empty batch from the key, not from the row it remembers", async () => {
        const [log, other] = [await open(), await open()];
        const key: MirrorKey = { project: "p", session: `empty-${encrypted}` };
        await log.append(key, entries("before", 2), listUuids);
        await other.drop(key);
        expect(await log.append(key, [], listUuids)).toEqual({ stored: 0, generation: 1, nextSeq: 0, mismatched: [] });
      });

      it.skipIf(!encrypted)(
        "leaves no data key of a generation a drop left, when the append after it fails",
        async () => {
          const [log, other] = [await open(), await open()];
          const key: MirrorKey = { project: "p", session: "failed-after-drop" };
          await log.append(key, entries("before", 2), listUuids);
          await other.drop(key);
          const failing: MirrorSummarize = () => {
            throw new Error("summary refused");
          };
          // The remembered row is of generation 0: taking its keys makes generation 0's key again.
          await expect(log.append(key, entries("after", 1), failing)).rejects.toThrow(/summary refused/);
          const keyOf = (generation: number) => ({ tenant: "default", sessionId: mirrorKeyName(key, generation) });
          expect(await keys?.keyring.dataKey(keyOf(0), false)).toBeUndefined();
          expect(await log.append(key, entries("after", 1), listUuids)).toMatchObject({ generation: 1, nextSeq: 1 });
          expect(await keys?.keyring.dataKey(keyOf(0), false)).toBeUndefined();
        },
      );

      it.skipIf(backend.name !== "sqlite")("writes on the remembered row without reading it (SQLite)", async () => {
        const log = await open();
        const key: MirrorKey = { project: "p", session: `unread-${encrypted}` };
        await log.append(key, entries("first", 2), listUuids);
        const seen = watchSqliteStatements();
        expect(await log.append(key, entries("second", 2), listUuids)).toMatchObject({ stored: 2, nextSeq: 4 });
        expect(seen.filter((s) => s.method !== "run")).toEqual([]);
        expect(seen.map((s) => s.sql.split(" ").slice(0, 3).join(" "))).toEqual([
          "BEGIN IMMEDIATE",
          "UPDATE mirror_keys SET",
          'INSERT INTO "mirror_entries"',
          "COMMIT",
        ]);
      });

      it.skipIf(backend.name !== "sqlite")(
        "makes a new key's row with its entries in one transaction (encrypted: read, made, then written on), with no locked read (SQLite)",
        async () => {
          const log = await open();
          const key: MirrorKey = { project: "p", session: `new-${encrypted}` };
          const seen = watchSqliteStatements();
          expect(await log.append(key, entries("first", 2), listUuids)).toMatchObject({ stored: 2, nextSeq: 2 });
          expect(seen.map((s) => s.sql.split(" ").slice(0, 3).join(" "))).toEqual(
            encrypted
              ? [
                  "select * from",
                  'insert into "mirror_keys"',
                  "BEGIN IMMEDIATE",
                  "UPDATE mirror_keys SET",
                  'INSERT INTO "mirror_entries"',
                  "COMMIT",
                ]
              : ["BEGIN IMMEDIATE", "INSERT INTO mirror_keys", 'INSERT INTO "mirror_entries"', "COMMIT"],
          );
          expect(await log.entries(key, 0)).toEqual(entries("first", 2).map((e) => e.text));
          expect(await log.key(key)).toMatchObject({ generation: 0, nextSeq: 2, foldedSeq: 0 });
        },
      );

      it.skipIf(backend.name !== "sqlite" || encrypted)(
        "never bets a key it has written new again, though it no longer remembers its row (SQLite)",
        async () => {
          const log = await open();
          const key: MirrorKey = { project: "p", session: "known" };
          await log.append(key, entries("first", 1), listUuids);
          // More keys than the rows the log remembers: the first key's row is forgotten.
          for (let i = 0; i < 1_001; i++)
            await log.append({ project: "p", session: `other-${i}` }, entries(`o${i}`, 1));
          const seen = watchSqliteStatements();
          expect(await log.append(key, entries("again", 1), listUuids)).toMatchObject({ stored: 1, nextSeq: 2 });
          expect(seen.map((s) => s.sql.split(" ").slice(0, 3).join(" "))).toEqual([
            "select * from",
            "BEGIN IMMEDIATE",
            "UPDATE mirror_keys SET",
            'INSERT INTO "mirror_entries"',
            "COMMIT",
          ]);
        },
      );

      describe.skipIf(backend.name !== "postgres")("on PostgreSQL", () => {
        it("appends in one statement on the row it left; a log that never wrote the key bets it new first (nothing written), then reads it", async () => {
          const log = await open();
          const key: MirrorKey = { project: "p", session: `quick-${encrypted}` };
          await log.append(key, entries("first", 3), listUuids);
          let seen = watchPgStatements();
          expect(await log.append(key, entries("second", 4), listUuids)).toMatchObject({ stored: 4, nextSeq: 7 });
          expect(seen).toEqual([expect.stringMatching(/^WITH guard AS/)]);
          vi.restoreAllMocks();
          const fresh = await open();
          seen = watchPgStatements();
          const result = await fresh.append(key, entries("third", 2), listUuids);
          expect(result).toMatchObject({ stored: 2, nextSeq: 9, mismatched: [] });
          expect(seen).toEqual([
            ...(encrypted ? [] : [expect.stringMatching(/^WITH guard AS \(INSERT INTO mirror_keys/)]),
            expect.stringMatching(/^select \* from "mirror_keys"/),
            expect.stringMatching(/^WITH guard AS \(UPDATE mirror_keys/),
          ]);
          const stored = [...entries("first", 3), ...entries("second", 4), ...entries("third", 2)];
          expect(await log.entries(key, result.generation)).toEqual(stored.map((e) => e.text));
          expect(JSON.parse((await log.key(key))?.summary ?? "null")).toEqual(stored.map((e) => e.uuid));
        });

        it("makes a new key's row with its entries in one statement (encrypted: read, made, written on in three), with no locked transaction", async () => {
          const log = await open();
          const key: MirrorKey = { project: "p", session: `new-${encrypted}` };
          const seen = watchPgStatements();
          const result = await log.append(key, entries("first", 3), listUuids);
          expect(result).toMatchObject({ stored: 3, nextSeq: 3, generation: 0 });
          // Plain: the row made as the append leaves it, the entries inserted only if it was. Encrypted: the
          // row read (none), made (its values returned), and written on with the entries.
          expect(seen).toEqual(
            encrypted
              ? [
                  expect.stringMatching(/^select \* from "mirror_keys"/),
                  expect.stringMatching(/^insert into "mirror_keys" .* on conflict do nothing returning/),
                  expect.stringMatching(/^WITH guard/),
                ]
              : [expect.stringMatching(/^WITH guard AS \(INSERT INTO mirror_keys/)],
          );
          expect(await log.key(key)).toMatchObject({ generation: 0, nextSeq: 3, foldedSeq: 0 });
          vi.restoreAllMocks();
          expect(await log.entries(key, 0)).toEqual(entries("first", 3).map((e) => e.text));
        });

        it.skipIf(encrypted)(
          "bets a new key new, loses to another process that made it first, and appends after what it stored",
          async () => {
            const [log, other] = [await open(), await open()];
            const key: MirrorKey = { project: "p", session: "raced-new" };
            let letIn = true;
            const seen = watchPgStatements(async (sql) => {
              if (!letIn || !sql.startsWith("WITH guard AS (INSERT INTO mirror_keys")) return;
              letIn = false;
              await other.append(key, entries("theirs", 2), listUuids);
            });
            const result = await log.append(key, entries("ours", 3), listUuids);
            vi.restoreAllMocks();
            expect(result).toMatchObject({ stored: 3, nextSeq: 5, generation: 0, mismatched: [] });
            // Ours: the bet (nothing written), the row read, the quick path on it; theirs ran between.
            expect(seen.filter((sql) => /^(WITH guard|select)/.test(sql))).toEqual([
              expect.stringMatching(/^WITH guard AS \(INSERT INTO mirror_keys/),
              expect.stringMatching(/^WITH guard AS \(INSERT INTO mirror_keys/),
              expect.stringMatching(/^select \* from "mirror_keys"/),
              expect.stringMatching(/^WITH guard AS \(UPDATE mirror_keys/),
            ]);
            const stored = [...entries("theirs", 2), ...entries("ours", 3)];
            expect(await log.entries(key, 0)).toEqual(stored.map((e) => e.text));
            expect(JSON.parse((await log.key(key))?.summary ?? "null")).toEqual(stored.map((e) => e.uuid));
          },
        );

        /** `log` appends `ours` to `key` while another process appends `theirs` between its read and its write. */
        async function appendAcross(key: MirrorKey, ours: MirrorEntryInput[], theirs: MirrorEntryInput[]) {
          const [log, other] = [await open(), await open()];
          await log.append(key, entries("start", 2), listUuids);
          let letIn = true;
          const seen = watchPgStatements(async (sql) => {
            if (!letIn || !sql.startsWith("WITH guard AS")) return;
            letIn = false;
            await other.append(key, theirs, listUuids);
          });
          const result = await log.append(key, ours, listUuids);
          vi.restoreAllMocks();
          return { log, result, seen };
        }

        it("reads the row again and appends when another process moved it in between", async () => {
          const key: MirrorKey = { project: "p", session: `moved-${encrypted}` };
          const { log, result, seen } = await appendAcross(key, entries("ours", 3), entries("theirs", 3));
          expect(result).toMatchObject({ stored: 3, nextSeq: 8, mismatched: [] });
          expect(seen.some((sql) => /^begin/i.test(sql))).toBe(false);
          const stored = [...entries("start", 2), ...entries("theirs", 3), ...entries("ours", 3)];
          expect(await log.entries(key, result.generation)).toEqual(stored.map((e) => e.text));
          expect(JSON.parse((await log.key(key))?.summary ?? "null")).toEqual(stored.map((e) => e.uuid));
        });

        it("stores every entry once when the other process stored a uuid of the batch in between", async () => {
          const key: MirrorKey = { project: "p", session: `held-${encrypted}` };
          // Theirs holds one uuid of ours (same text): it lands first, ours must not repeat it (the locked path).
          const theirs = [...entries("theirs", 3), ...entries("ours", 1)];
          const { log, result, seen } = await appendAcross(key, entries("ours", 3), theirs);
          expect(result).toMatchObject({ stored: 2, nextSeq: 8, mismatched: [] });
          expect(seen.some((sql) => /^begin/i.test(sql))).toBe(true);
          const stored = [...entries("start", 2), ...theirs, ...entries("ours", 3).slice(1)];
          expect(await log.entries(key, result.generation)).toEqual(stored.map((e) => e.text));
          expect(JSON.parse((await log.key(key))?.summary ?? "null")).toEqual(stored.map((e) => e.uuid));
        });
      });
    });
  }
}

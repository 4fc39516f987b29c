/**
 * Erasure that reaches the disk: after `erase` and `purgeErased`, a byte scan of the database's files
 * (PostgreSQL: every file of the database's folder; SQLite: the file, its WAL and its shared memory) finds
 * no copy of an erased session's content, its content hashes included, while other sessions' content is
 * read back unchanged. The scan finds the content before the erasure, so each check can fail.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import type { StoredEvent } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels, type OpenedEventStore, openEventStore } from "@palimpsest/store";
import { createMemoryStore } from "@palimpsest/store/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { LOG_CONTENT_COLUMNS } from "../../packages/store/src/engine/erasure-purge.ts";
import { STORE_FEATURES } from "../../packages/store/src/open/store-features.ts";
import { newKey } from "../claude-agent-sdk/contract-context.ts";
import { dumpDatabase, rowsMentioning } from "../support/database-scan.ts";
import { scanDatabaseFiles as scan, totalHits } from "../support/file-scan.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { rejection } from "../support/rejection.ts";
import type { ScratchDatabase } from "../support/scratch-postgres.ts";
import { Database } from "../support/sqlite-driver.ts";
import { databaseOf } from "../support/store-database.ts";
import { type TestEngine, testEngines } from "../support/test-engines.ts";
import { indexedTail, populatedSession, uniqueMarker } from "./erase-fixtures.ts";
import { bigToolOutput, incompressibleSession, mirroredConversation } from "./purge-fixtures.ts";

/** The relations of PostgreSQL that hold the planted content before the erasure (a TOAST table under its owner's name). */
const POSTGRES_HOLDERS = [
  "events",
  "events (toast)",
  "snapshots (toast)",
  "precompaction_candidates",
  "handoffs",
  "mirror_entries",
  "mirror_keys",
];

/** The tables PostgreSQL's purge rewrites, in order. */
const POSTGRES_REWRITTEN = [
  "events",
  "snapshots",
  "idempotency_keys",
  "precompaction_candidates",
  "handoffs",
  "mirror_entries",
  "mirror_keys",
];

/** Runs SQL on a PostgreSQL database of its own connection. */
async function onPostgres<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Every content hash the log and the idempotency keys hold for `sessionIds` (each the SHA-256 of an append's content). */
async function contentHashes(store: OpenedEventStore, sessionIds: readonly string[]): Promise<string[]> {
  const db = databaseOf(store);
  const events = await db
    .selectFrom("events")
    .select("content_hash")
    .where("session_id", "in", sessionIds)
    .where("content_hash", "is not", null)
    .execute();
  const keys = await db
    .selectFrom("idempotency_keys")
    .select("content_hash")
    .where("session_id", "in", sessionIds)
    .execute();
  return [...new Set([...events, ...keys].map((r) => String(r.content_hash)))];
}

for (const engine of testEngines()) {
  describe.skipIf(engine.skip !== undefined)(`purgeErased (${engine.name})`, () => {
    let disposers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const dispose of disposers.reverse()) await dispose();
      disposers = [];
    });

    /** A database of this test's own (SQLite: a file), and a store on it; closed and dropped after the test. */
    async function fresh(): Promise<{ db: ScratchDatabase; store: OpenedEventStore }> {
      const db = await (engine as TestEngine).create("purge", "store.db");
      disposers.push(() => db.drop());
      const store = await openEventStore(db.url);
      disposers.push(() => store.close());
      return { db, store };
    }

    it("leaves no copy of erased content in the database's files; other sessions' content reads back unchanged", async () => {
      const { db, store } = await fresh();
      const runtime = new Palimpsest({ store, counterFor: createTokenCounter, snapshotEvery: 1 });
      const sdk = await openSessionStore({ url: db.url });
      disposers.push(() => sdk.close());
      const marker = uniqueMarker("p");
      const keptMarker = uniqueMarker("k");
      // Content everywhere a session keeps it: text, images, tool calls and outputs (one 16 KiB, in TOAST),
      // reasoning, metadata, a summary, a failure's detail, a candidate, a hand-off's reason, idempotency
      // hashes, snapshots after every write (one session's uncompressed), and a mirrored SDK transcript.
      const session = await populatedSession(runtime, marker);
      await bigToolOutput(session, marker, 0);
      const plain = await incompressibleSession(runtime, marker);
      const key = newKey();
      await mirroredConversation(sdk, key, marker);
      const mirrored = await sdk.sessionIds(key);
      expect(mirrored).toHaveLength(1);
      const kept = [await populatedSession(runtime, keptMarker), await incompressibleSession(runtime, keptMarker)];
      await bigToolOutput(kept[0] as NonNullable<(typeof kept)[0]>, keptMarker, 0);
      const keptKey = newKey();
      const keptLines = await mirroredConversation(sdk, keptKey, keptMarker);
      const keptIds = [...kept.map((s) => s.id), ...(await sdk.sessionIds(keptKey))];
      await new AuditReadModels(store).catchUp();
      await runtime.settled(); // the snapshots, written in the background
      // What autovacuum does on its own: ANALYZE would copy sampled values into pg_statistic.
      if (engine.name === "postgres") await onPostgres(db.url, "ANALYZE");
      // Hashes of content only the erased sessions held (a completed turn's usage can hash alike in a kept one).
      const keptHashes = new Set(await contentHashes(store, keptIds));
      const hashes = (await contentHashes(store, [session.id, plain.id, ...mirrored])).filter(
        (h) => !keptHashes.has(h),
      );
      expect(hashes.length).toBeGreaterThan(5);

      const planted = await scan(db.url, [marker]);
      expect(totalHits(planted)).toBeGreaterThan(100);
      // The search index keeps the terms lower-cased (and SQLite's FTS5 after a shared prefix): their tail.
      const tail = indexedTail(marker);
      expect(totalHits(await scan(db.url, [tail]))).toBeGreaterThan(0);
      if (engine.name === "postgres") expect([...planted.keys()]).toEqual(expect.arrayContaining(POSTGRES_HOLDERS));
      expect(totalHits(await scan(db.url, hashes))).toBeGreaterThan(0);
      const keptLogs = await Promise.all(keptIds.map((id) => store.readStream(id)));
      const dumped = await dumpDatabase(store);

      await runtime.erase(session.id, { reason: "right to erasure" });
      await runtime.erase(plain.id);
      await sdk.delete(key);
      for (const id of mirrored) expect((await store.getSession(id))?.erasedAt).toEqual(expect.any(String));
      const erasedOnly = await scan(db.url, [marker]);
      expect(totalHits(erasedOnly)).toBeGreaterThan(0); // what the erasure alone leaves: the purge's work

      const purged = await runtime.purgeErased();
      expect(purged.relations.map((r) => r.name)).toEqual(
        engine.name === "postgres" ? POSTGRES_REWRITTEN : [db.url, `${db.url}-wal`],
      );
      for (const r of purged.relations) {
        expect(r.bytesBefore).toBeGreaterThanOrEqual(0);
        expect(r.bytesAfter).toBeGreaterThanOrEqual(0);
        expect(r.ms).toBeGreaterThanOrEqual(0);
      }
      if (engine.name === "sqlite") expect(purged.relations[1]?.bytesAfter).toBe(0); // the WAL emptied
      expect(purged.ms).toBeGreaterThanOrEqual(purged.waitedMs);
      expect(Object.fromEntries(await scan(db.url, [marker, tail, ...hashes]))).toEqual({});

      const dumpedAfter = await dumpDatabase(store);
      for (const [i, id] of keptIds.entries()) {
        expect(await store.readStream(id), id).toEqual(keptLogs[i] as StoredEvent[]);
        expect(rowsMentioning(dumpedAfter, id)).toEqual(rowsMentioning(dumped, id));
      }
      expect(await sdk.load(keptKey)).toEqual(keptLines);
      expect(totalHits(await scan(db.url, [keptMarker]))).toBeGreaterThan(100);
      const resumed = await runtime.resume(session.id);
      expect(resumed.view().messages.length).toBeGreaterThan(10); // the skeleton stays

      const again = await runtime.purgeErased();
      expect(again.relations.map((r) => r.name)).toEqual(purged.relations.map((r) => r.name));
      expect(Object.fromEntries(await scan(db.url, [marker, tail, ...hashes]))).toEqual({});
      expect(await store.readStream(keptIds[0] as string)).toEqual(keptLogs[0]);
    });

    it("waits for a reader that began before the erasure, then leaves no copy; past its wait bound, a retryable STORAGE", async () => {
      const { db, store } = await fresh();
      const runtime = new Palimpsest({ store, counterFor: createTokenCounter, snapshotEvery: 1 });
      const marker = uniqueMarker("o");
      const session = await incompressibleSession(runtime, marker);
      // A reader whose snapshot still sees the session as it was: PostgreSQL keeps the old row versions
      // for it (VACUUM FULL copies them), SQLite the WAL frames it reads.
      const reader = await openReader(engine.name, db.url);
      disposers.push(() => reader.end());
      await runtime.erase(session.id);

      const refused = await rejection(store.purgeErased({ waitTimeoutMs: 300 }));
      expect(refused).toMatchObject({ code: "STORAGE", retryable: true, details: { operation: "purgeErased" } });
      expect(refused.message).toMatch(engine.name === "postgres" ? /older than the purge .*pid \d+/ : /WAL/);

      let settled = false;
      const purging = store.purgeErased().finally(() => {
        settled = true;
      });
      await sleep(600);
      expect(settled).toBe(false);
      await reader.end();
      const result = await purging;
      expect(result.waitedMs).toBeGreaterThanOrEqual(400);
      expect(Object.fromEntries(await scan(db.url, [marker]))).toEqual({});
    });

    it("bad options are VALIDATION naming the option, and nothing is rewritten", async () => {
      const { store } = await fresh();
      for (const [options, path] of [
        [{ waitTimeoutMs: -1 }, "waitTimeoutMs"],
        [{ waitTimeoutMs: 1.5 }, "waitTimeoutMs"],
        [{ waitTimeoutMs: "5" }, "waitTimeoutMs"],
        [{ waitTimeout: 5 }, "waitTimeout"],
      ] as const) {
        for (const target of [store, createMemoryStore()]) {
          const error = await rejection(target.purgeErased(options as never));
          expect(error.code, JSON.stringify(options)).toBe("VALIDATION");
          expect(error.details, JSON.stringify(options)).toMatchObject({ path });
        }
      }
      expect((await rejection(store.purgeErased(null as never))).code).toBe("VALIDATION");
      expect(await createMemoryStore().purgeErased()).toEqual({ relations: [], waitedMs: 0, ms: 0 });
    });
  });
}

/** A reader holding a snapshot (a repeatable-read transaction on PostgreSQL, a read transaction on SQLite) until `end`. */
async function openReader(engine: "postgres" | "sqlite", url: string): Promise<{ end(): Promise<void> }> {
  if (engine === "sqlite") {
    const raw = new Database(url);
    raw.exec("BEGIN");
    raw.prepare("SELECT count(*) FROM events").get();
    return {
      async end() {
        if (raw.open) raw.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  // A snapshot and no lock on the log's tables: nothing but the horizon of old row versions holds the purge.
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
  await client.query("SELECT 1");
  let ended = false;
  return {
    async end() {
      if (ended) return;
      ended = true;
      await client.query("COMMIT").catch(() => {});
      await client.end();
    },
  };
}

const postgres = testEngines().find((e) => e.name === "postgres");
const server = postgresServer();
const serverUrl = "url" in server ? server.url : "";
describe.skipIf(postgres?.skip !== undefined)("purgeErased on PostgreSQL: privileges and statistics", () => {
  let disposers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const dispose of disposers.reverse()) await dispose();
    disposers = [];
  });

  it("a role that owns neither the tables nor the database is told what it needs, and nothing is rewritten", async () => {
    const db = await (postgres as TestEngine).create("purge_role");
    const role = `purge_${Math.random().toString(36).slice(2, 10)}`;
    // Cleanups run in reverse: the database is dropped before the role its grants name.
    disposers.push(() => onPostgres(serverUrl, `DROP ROLE IF EXISTS ${role}`).then(() => {}));
    disposers.push(() => db.drop());
    const owner = await openEventStore(db.url);
    await owner.close();
    await onPostgres(db.url, `CREATE ROLE ${role} LOGIN`);
    await onPostgres(db.url, `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
    await onPostgres(db.url, `GRANT USAGE, CREATE ON SCHEMA public TO ${role}`);
    const url = new URL(db.url);
    url.username = role;
    const store = await openEventStore(url.href);
    disposers.push(() => store.close());
    const filenodes = () =>
      onPostgres(db.url, "SELECT relname, relfilenode FROM pg_class WHERE relname = ANY($1) ORDER BY relname", [
        POSTGRES_REWRITTEN,
      ]);
    const before = await filenodes();
    const error = await rejection(store.purgeErased());
    expect(error).toMatchObject({ code: "STORAGE", retryable: false, details: { operation: "purgeErased" } });
    expect(error.message).toContain(`the role ${role} may not rewrite`);
    expect(error.message).toContain("events");
    expect(error.message).toMatch(/owner/);
    expect(await filenodes()).toEqual(before);
  });

  it("waits for a transaction of another database that began before the erasure (its xid holds every database's old rows)", async () => {
    const db = await (postgres as TestEngine).create("purge_other_db");
    disposers.push(() => db.drop());
    const store = await openEventStore(db.url);
    disposers.push(() => store.close());
    const runtime = new Palimpsest({ store, counterFor: createTokenCounter, snapshotEvery: 1 });
    const marker = uniqueMarker("x");
    const session = await incompressibleSession(runtime, marker);
    // A transaction of the server's own database holding a transaction id: every snapshot taken while it
    // runs (VACUUM FULL's in this database too) counts it as running, so rows it might still see are kept.
    const other = new pg.Client({ connectionString: serverUrl });
    other.on("error", () => {});
    await other.connect();
    disposers.push(() => other.end());
    await other.query("BEGIN");
    await other.query("SELECT pg_current_xact_id()");
    await runtime.erase(session.id);

    const refused = await rejection(store.purgeErased({ waitTimeoutMs: 300 }));
    expect(refused).toMatchObject({ code: "STORAGE", retryable: true, details: { operation: "purgeErased" } });
    expect(refused.message).toMatch(/older than the purge .*pid \d+/);
    await other.query("COMMIT");
    await store.purgeErased();
    expect(Object.fromEntries(await scan(db.url, [marker]))).toEqual({});
  });

  it("gathers no planner statistics on any content column, so ANALYZE copies no content into pg_statistic", async () => {
    const db = await (postgres as TestEngine).create("purge_stats");
    disposers.push(() => db.drop());
    const store = await openEventStore(db.url);
    await store.close();
    await onPostgres(db.url, "ANALYZE");
    const declared = [LOG_CONTENT_COLUMNS, ...STORE_FEATURES.map((f) => f.contentColumns ?? {})].flatMap((columns) =>
      Object.entries(columns).flatMap(([table, names]) => names.map((column) => `${table}.${column}`)),
    );
    expect(declared.length).toBeGreaterThan(10);
    const targets = await onPostgres<{ column: string; target: number }>(
      db.url,
      `SELECT c.relname || '.' || a.attname AS column, a.attstattarget AS target
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relname || '.' || a.attname = ANY($1)`,
      [declared],
    );
    expect(targets.map((t) => t.column).sort()).toEqual([...declared].sort());
    for (const t of targets) expect(t.target, t.column).toBe(0);
    const gathered = await onPostgres<{ column: string }>(
      db.url,
      "SELECT tablename || '.' || attname AS column FROM pg_stats WHERE tablename || '.' || attname = ANY($1)",
      [declared],
    );
    expect(gathered).toEqual([]);
  });
});

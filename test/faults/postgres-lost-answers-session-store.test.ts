/**
 * The SessionStore on PostgreSQL when the answer to its committed append is lost (the connection drops after
 * the statement reached the server): the store makes the append again itself, the caller sees no failure,
 * and the key holds every entry once, in order, its summary folded from each batch once. Both of the
 * mirror's write paths are cut: the quick append (its one guarded statement, on the key's row as the store
 * last left it) and the locked append (its commit, after a uuid of the batch was found held). While the
 * server stays unreachable the append is rejected as retryable, and the SDK's retry lands once it is back.
 */

import { openSessionStore, type PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";

const server = postgresServer();

/** Text of the quick append's one statement (postgres-guarded-insert.ts). */
const QUICK_APPEND = "WITH guard AS (";
/** The locked path's commit (postgres-guarded-write.ts; kysely's own transactions send `commit`). */
const LOCKED_COMMIT = "COMMIT";

/** A Claude Code transcript line: a user prompt or an assistant reply, with its uuid. */
const line = (n: number) => ({
  type: n % 2 === 0 ? "user" : "assistant",
  uuid: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
  sessionId: "lost-answers",
  message: { role: n % 2 === 0 ? "user" : "assistant", content: `line ${n}` },
});
const batch = (from: number, count: number) => Array.from({ length: count }, (_, i) => line(from + i));

describe.skipIf("skip" in server)("PostgreSQL faults: the SessionStore's append whose answer is lost", () => {
  let database: ScratchDatabase;
  let proxy: TcpProxy;
  let proxied: PalimpsestSessionStore;
  let direct: PalimpsestSessionStore;
  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "pglostmirror");
    const target = new URL(server.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    proxied = await openSessionStore({ url: proxy.urlFor(database.url) });
    direct = await openSessionStore({ url: database.url });
  });
  afterAll(async () => {
    await proxied?.close();
    await direct?.close();
    await proxy?.close();
    await database?.drop();
  });

  /** The key's entries' uuids as a fresh store reads them. */
  const storedUuids = async (sessionId: string) =>
    ((await direct.load({ projectKey: "lost", sessionId })) ?? []).map((e) => e.uuid);

  it.each([
    ["the quick append", QUICK_APPEND, 0],
    ["the locked append (a uuid of the batch already held)", LOCKED_COMMIT, 1],
  ])("%s: made again by the store, nothing stored twice, later appends go on", async (_, marker, held) => {
    const key = { projectKey: "lost", sessionId: `key-${held}` };
    await proxied.append(key, batch(0, 3)); // the store now remembers the key's row
    // With `held`, the batch repeats the last line stored: the insert fails on the uuid, the locked path runs.
    const cut = batch(3 - held, 3 + held);
    await proxied.flush(); // no fold of the first batch in flight to take the lost answer
    const lostBefore = proxy.lost;
    proxy.loseNextAnswer(marker);
    await proxied.append(key, cut); // the answer is lost, the store appends again: nothing reaches the SDK
    expect(proxy.lost).toBe(lostBefore + 1);
    await proxied.append(key, batch(6, 2));
    const uuids = batch(0, 8).map((e) => e.uuid);
    expect(await storedUuids(key.sessionId)).toEqual(uuids);
    expect((await proxied.load(key))?.map((e) => e.uuid)).toEqual(uuids);

    // The summary was folded from each batch once: the same as a key written without a fault.
    const clean = { projectKey: "lost", sessionId: `clean-${held}` };
    for (const b of [batch(0, 3), batch(3, 3), batch(6, 2)]) await direct.append(clean, b);
    await Promise.all([proxied.flush(), direct.flush()]);
    const summaries = await direct.listSessionSummaries("lost");
    const summaryOf = (sessionId: string) => {
      const found = summaries.find((s) => s.sessionId === sessionId);
      expect(found).toBeDefined();
      const { sessionId: _id, mtime: _mtime, ...rest } = found as (typeof summaries)[number];
      return rest;
    };
    expect(summaryOf(key.sessionId)).toEqual(summaryOf(clean.sessionId));
  });

  it("while the server is unreachable: rejected as retryable, nothing stored; the SDK's retry lands after", async () => {
    const key = { projectKey: "lost", sessionId: "down" };
    await proxied.append(key, batch(0, 2));
    await proxied.flush();
    await proxy.goDown();
    try {
      await expect(proxied.append(key, batch(2, 2))).rejects.toMatchObject({
        code: "STORAGE",
        details: { retryable: true },
      });
    } finally {
      await proxy.comeUp();
    }
    expect(await storedUuids(key.sessionId)).toEqual(batch(0, 2).map((e) => e.uuid));
    await proxied.append(key, batch(2, 2));
    expect(await storedUuids(key.sessionId)).toEqual(batch(0, 4).map((e) => e.uuid));
  });
});

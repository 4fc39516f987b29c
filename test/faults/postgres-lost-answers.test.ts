import { StorageError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { compact, Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { viewProblems } from "../support/view-invariants.ts";

const server = postgresServer();

/** Every append statement carries its prepared statement's name (see postgres-adapter.ts). */
const APPEND_MARKER = "palimpsest_append_";

/** The error a call threw, or undefined. */
const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.skipIf("skip" in server)("PostgreSQL faults: the answer to a committed write is lost", () => {
  let database: ScratchDatabase;
  let proxy: TcpProxy;
  let direct: Palimpsest;
  let proxied: Palimpsest;
  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "pglost");
    const target = new URL(server.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    direct = new Palimpsest({ store: await openEventStore(database.url), counterFor: createTokenCounter });
    proxied = new Palimpsest({
      store: await openEventStore(proxy.urlFor(database.url)),
      counterFor: createTokenCounter,
    });
  });
  afterAll(async () => {
    await proxied?.store.close();
    await direct?.store.close();
    await proxy?.close();
    await database?.drop();
  });

  it("an append: retryable STORAGE error, the retry with the same key returns it, nothing doubled", async () => {
    const session = await proxied.startSession({ contextWindow: 4_000, profile: "local" });
    for (let n = 0; n < 3; n++) await session.append(exchange(n));
    proxy.loseNextAnswer(APPEND_MARKER);
    const failure = await failureOf(session.append(exchange(3), { idempotencyKey: "lost-3" }));
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).details.retryable).toBe(true);
    const ids = (log: Awaited<ReturnType<typeof direct.store.readStream>>) =>
      log.flatMap((e) => (e.type === "message.appended" ? [e.data.message.id] : []));
    expect(ids(await direct.store.readStream(session.id))).toContain("u3"); // it had committed

    await session.append(exchange(3), { idempotencyKey: "lost-3" });
    const log = await direct.store.readStream(session.id);
    expect(ids(log)).toEqual([0, 1, 2, 3].flatMap((n) => exchange(n).map((m) => m.id)));
    expect(viewProblems(session, log)).toEqual([]);
    expect((await direct.resume(session.id)).view()).toEqual(session.view());
  });

  it("a compaction: retryable STORAGE error, the refreshed handle sees it committed once", async () => {
    const session = await proxied.startSession({ contextWindow: 4_000, profile: "local" });
    for (let n = 0; n < 24; n++) await session.append(exchange(n));
    const basis = session.state.viewVersion;
    proxy.loseNextAnswer(APPEND_MARKER);
    const failure = await failureOf(compact(session, { policy: "summary", force: true }));
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).details.retryable).toBe(true);

    await session.refresh();
    expect(session.state.viewVersion).not.toBe(basis); // committed: the caller does not compact again
    const log = await direct.store.readStream(session.id);
    expect(log.filter((e) => e.type === "messages.superseded")).toHaveLength(1);
    expect(viewProblems(session, log)).toEqual([]);
    expect((await direct.resume(session.id)).view()).toEqual(session.view());
  });

  it("a read: the store reads again, the caller gets the answer", async () => {
    const session = await proxied.startSession({ contextWindow: 4_000, profile: "local" });
    for (let n = 0; n < 3; n++) await session.append(exchange(n));
    const lostBefore = proxy.lost;
    proxy.loseNextAnswer('from "events" where "session_id" = $1 and "seq" >= $2');
    const log = await proxied.store.readStream(session.id);
    expect(proxy.lost).toBe(lostBefore + 1);
    expect(log).toEqual(await direct.store.readStream(session.id));
    expect(log.flatMap((e) => (e.type === "message.appended" ? [e.data.message.id] : []))).toEqual(
      [0, 1, 2].flatMap((n) => exchange(n).map((m) => m.id)),
    );
  });
});

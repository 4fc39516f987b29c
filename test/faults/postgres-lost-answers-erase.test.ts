/**
 * An erasure on PostgreSQL through a TCP proxy that cuts the connection at its transaction's COMMIT: after
 * the server committed it (its answer lost), before the server got it, or on every attempt. The store makes
 * the erasure again; its session.erased event's id is fixed before the first attempt, so a retry that finds
 * the session erased by that attempt reports `erased: true`, as the lost answer would have.
 */
import { StorageError } from "@palimpsest/core";
import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { type ProxiedRuntimes, proxiedRuntimes } from "../support/proxied-runtimes.ts";
import type { TcpProxy } from "../support/tcp-proxy.ts";

const server = postgresServer();

/** The erasure's transaction ends with it (postgres-guarded-write.ts). */
const COMMIT = "COMMIT";

describe.skipIf("skip" in server)("PostgreSQL faults: the connection cut under an erasure", () => {
  let runtimes: ProxiedRuntimes;
  let proxy: TcpProxy;
  let direct: Palimpsest;
  let proxied: Palimpsest;
  beforeAll(async () => {
    if ("skip" in server) return;
    runtimes = await proxiedRuntimes(server.url, "pglosterase");
    ({ proxy, direct, proxied } = runtimes);
  });
  afterAll(() => runtimes?.close());

  /** A session holding two exchanges, written without the proxy. */
  async function sessionId(): Promise<string> {
    const session = await direct.startSession({});
    await session.append(exchange(0));
    await session.append(exchange(1));
    return session.id;
  }

  /** The erasure as the log holds it: erasing again reports it (erased: false), and there is one session.erased. */
  async function erasedOnce(id: string) {
    const log = await direct.store.readStream(id);
    expect(log.filter((e) => e.type === "session.erased")).toHaveLength(1);
    expect(log.at(-1)?.type).toBe("session.erased");
    return direct.erase(id);
  }

  it("an erasure whose answer is lost after it committed: erased, reported erased: true, once", async () => {
    const id = await sessionId();
    const lost = proxy.lost;
    proxy.loseNextAnswer(COMMIT);
    const result = await proxied.erase(id, { reason: "ticket-1" });
    expect(proxy.lost).toBe(lost + 1);
    const recorded = await erasedOnce(id);
    expect(result).toEqual({ ...recorded, erased: true });
    expect(result).toMatchObject({ erased: true, events: 9, messages: 8 });
  });

  it("an erasure whose COMMIT is lost before the server got it is made again: erased once", async () => {
    const id = await sessionId();
    const cut = proxy.lostRequests;
    proxy.loseNextRequests(COMMIT);
    const result = await proxied.erase(id);
    expect(proxy.lostRequests).toBe(cut + 1);
    expect(result).toEqual({ ...(await erasedOnce(id)), erased: true });
  });

  it("an erasure cut on every attempt: a retryable STORAGE error after three, nothing erased", async () => {
    const id = await sessionId();
    const before = await direct.store.readStream(id);
    const cut = proxy.lostRequests;
    proxy.loseNextRequests(COMMIT, 3);
    const failure = await proxied.erase(id).catch((error: unknown) => error);
    proxy.loseNextRequests(COMMIT, 0); // (left armed only when fewer attempts were made)
    expect(proxy.lostRequests).toBe(cut + 3);
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).details).toMatchObject({ operation: "erase", retryable: true });
    expect(await direct.store.readStream(id)).toEqual(before);
    expect((await direct.store.getSession(id))?.erasedAt).toBeUndefined();
  });

  it("erasing a session erased before still reports erased: false", async () => {
    const id = await sessionId();
    expect((await direct.erase(id)).erased).toBe(true);
    expect((await proxied.erase(id)).erased).toBe(false);
  });
});

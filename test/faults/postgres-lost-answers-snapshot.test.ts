/**
 * Through a TCP proxy that cuts the connection under a background snapshot's write: after the server
 * stored it (its answer lost), or before the server got it. The store makes the write again itself (it
 * leaves the same row however often it runs), so the snapshot is stored and nothing reaches the runtime's
 * onSnapshotError; a resume from it folds what the log does.
 */
import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { type ProxiedRuntimes, proxiedRuntimes } from "../support/proxied-runtimes.ts";
import type { TcpProxy } from "../support/tcp-proxy.ts";

const server = postgresServer();

/** The text of the snapshot write's statement (kysely's insert into the snapshots table). */
const SNAPSHOT_MARKER = 'insert into "snapshots"';

/** Events between snapshots: an exchange (four messages) makes one due. */
const SNAPSHOT_EVERY = 4;

describe.skipIf("skip" in server)("PostgreSQL faults: the connection cut under a snapshot's write", () => {
  let runtimes: ProxiedRuntimes;
  let proxy: TcpProxy;
  let direct: Palimpsest;
  let proxied: Palimpsest;
  const snapshotErrors: unknown[] = [];
  beforeAll(async () => {
    if ("skip" in server) return;
    runtimes = await proxiedRuntimes(server.url, "pglostsnap", {
      snapshotEvery: SNAPSHOT_EVERY,
      onSnapshotError: (error) => void snapshotErrors.push(error),
    });
    ({ proxy, direct, proxied } = runtimes);
  });
  afterAll(() => runtimes?.close());

  /** Appends exchanges until one's snapshot met the cut (`cuts()` moved), then waits for the background writes. */
  async function appendUntilCut(cuts: () => number) {
    const session = await proxied.startSession();
    const before = cuts();
    for (let n = 0; n < 5 && cuts() === before; n++) {
      await session.append(exchange(n));
      await proxied.settled();
    }
    expect(cuts()).toBe(before + 1);
    return session;
  }

  const cuts = [
    {
      what: "whose answer is lost after it was stored is stored",
      arm: () => proxy.loseNextAnswer(SNAPSHOT_MARKER),
      count: () => proxy.lost,
    },
    {
      what: "whose request is lost before the server got it is stored on the next attempt",
      arm: () => proxy.loseNextRequests(SNAPSHOT_MARKER),
      count: () => proxy.lostRequests,
    },
  ];
  for (const cut of cuts) {
    it(`a snapshot ${cut.what}, and no error reaches onSnapshotError`, async () => {
      snapshotErrors.length = 0;
      cut.arm();
      const session = await appendUntilCut(cut.count);
      expect(snapshotErrors).toEqual([]);
      const snapshot = await direct.store.loadSnapshot(session.id);
      expect(snapshot?.seq).toBe(session.state.lastSeq);
      expect((await direct.resume(session.id)).state).toEqual(session.state);
    });
  }
});

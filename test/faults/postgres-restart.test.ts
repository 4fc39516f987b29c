import type { ChangeFeed, EventStore, StoredEvent } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { watchEvents } from "@palimpsest/projections/live";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until, untilHeard } from "../contract/change-feed-probe.ts";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { seededRandom } from "../support/seeded-random.ts";
import type { TestStore } from "../support/store-backends.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { faultCount, faultSeed } from "./fault-scale.ts";
import {
  startFaultWriter,
  terminateBackends,
  WRITER_APP,
  type WriterMessage,
  withApplicationName,
  writerOutcome,
} from "./postgres-fault-writer.ts";

const server = postgresServer();

/** The application_name of the store's LISTEN connection (postgres-changes.ts). */
const LISTENER_APP = "palimpsest-changes";

/** Subscribes a live watcher of one session and records what it emits (an error ends it: recorded too). */
function watch(store: EventStore & ChangeFeed, sessionId: string) {
  const seen: StoredEvent[] = [];
  const errors: unknown[] = [];
  const subscription = watchEvents(store, { sessionId }).subscribe({
    next: (e) => void seen.push(e),
    error: (e) => void errors.push(e),
  });
  return { seen, errors, stop: () => subscription.unsubscribe() };
}

/** The seqs of `events` in order. */
const seqs = (events: readonly StoredEvent[]) => events.map((e) => e.seq);
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe.skipIf("skip" in server)("PostgreSQL faults: restarts and the LISTEN connection", () => {
  let database: ScratchDatabase;
  let name: string;
  let admin: pg.Client;
  let proxy: TcpProxy;
  const stores: TestStore[] = [];
  const open = async (url: string) => {
    const store = await openEventStore(url);
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "pgrestart");
    name = new URL(database.url).pathname.slice(1);
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const target = new URL(server.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await proxy?.close();
    await admin?.end();
    await database?.drop();
  });

  /** The pids of this database's LISTEN connections. */
  async function listeners(): Promise<number[]> {
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2",
      [name, LISTENER_APP],
    );
    return rows.map((r) => r.pid);
  }

  /** Polls the server until `done` holds (15 s at most). */
  async function untilQuery(done: () => Promise<boolean>): Promise<void> {
    for (const deadline = Date.now() + 15_000; !(await done()); ) {
      if (Date.now() > deadline) throw new Error("the server never reached the state waited for");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Waits until a new LISTEN connection (a pid not in `gone`) has run its catch-up read and is idle. */
  async function untilListenerBack(gone: readonly number[]): Promise<void> {
    await untilQuery(async () => {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND state = 'idle'
           AND query LIKE 'SELECT session_id, max(seq)%'`,
        [name, LISTENER_APP],
      );
      return rows.some((r) => !gone.includes(r.pid));
    });
  }

  it("the LISTEN connection comes back after its backend is terminated, and a watcher misses nothing committed meanwhile", async () => {
    const seed = faultSeed();
    const random = seededRandom(seed);
    const rounds = faultCount(10, 60);
    const watcherStore = await open(database.url);
    const writer = await open(database.url);
    const sid = newSessionId("listen");
    await writer.append(sid, [started()], { expectedVersion: "no-stream" });
    const watcher = watch(watcherStore, sid);
    let version = 1;
    try {
      await untilHeard(writer, watcherStore);
      for (let round = 0; round < rounds; round++) {
        const gone = await listeners();
        expect(await terminateBackends(admin, name, LISTENER_APP), `seed ${seed}`).toBeGreaterThan(0);
        await untilQuery(async () => !(await listeners()).some((pid) => gone.includes(pid)));
        // Committed while no connection listens: only the catch-up after reconnecting can tell the watcher.
        const count = 1 + Math.floor(random() * 4);
        for (let i = 0; i < count; i++) {
          version++;
          await writer.append(sid, [userMessage(`m${version}`, `while down ${round}`)], {
            expectedVersion: version - 1,
          });
        }
        await untilListenerBack(gone);
        await until(() => watcher.seen.length >= version, 10_000).catch(() => {});
        expect(seqs(watcher.seen), `seed ${seed}, round ${round}`).toEqual(range(version));
      }
      expect(watcher.errors).toEqual([]);
      console.log(`postgres LISTEN terminations: ${JSON.stringify({ seed, rounds, events: version })}`);
    } finally {
      watcher.stop();
    }
  });

  it("a watcher whose read fails because the server went down reads again from the same place when it is back", async () => {
    const writer = await open(database.url);
    const proxied = await open(proxy.urlFor(database.url));
    let armed = false;
    let failedReads = 0;
    // The real store through the proxy; its next read after arming runs while the proxy is down.
    const readsDuringOutage: EventStore & ChangeFeed = new Proxy(proxied, {
      get(target, property) {
        if (property === "readStream") {
          return async (...args: Parameters<TestStore["readStream"]>) => {
            if (!armed) return target.readStream(...args);
            armed = false;
            await proxy.goDown();
            try {
              return await target.readStream(...args);
            } catch (error) {
              failedReads++;
              throw error;
            } finally {
              await proxy.comeUp();
            }
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const sid = newSessionId("outage");
    await writer.append(sid, [started()], { expectedVersion: "no-stream" });
    const watcher = watch(readsDuringOutage, sid);
    try {
      await untilHeard(writer, proxied);
      await until(() => watcher.seen.length === 1);
      armed = true;
      await writer.append(sid, [userMessage("m2", "read while down")], { expectedVersion: 1 });
      await writer.append(sid, [userMessage("m3", "after")], { expectedVersion: 2 });
      await until(() => watcher.seen.length >= 3 || watcher.errors.length > 0, 20_000).catch(() => {});
      expect(failedReads).toBe(1);
      expect(watcher.errors).toEqual([]);
      expect(seqs(watcher.seen)).toEqual([1, 2, 3]);
    } finally {
      watcher.stop();
    }
  });

  it("the server restarted once mid-work: retryable STORAGE errors while it is down, then the writer completes and the watcher misses nothing", async () => {
    const direct = new Palimpsest({ store: await open(database.url), counterFor: createTokenCounter });
    const session = await direct.startSession({ contextWindow: 4_000, profile: "local" });
    const viaProxy = proxy.urlFor(database.url);
    const watcherStore = await open(viaProxy);
    const watcher = watch(watcherStore, session.id);
    try {
      await untilHeard(direct.store, watcherStore);
      const child = startFaultWriter(withApplicationName(viaProxy, WRITER_APP), session.id);
      let acked = 0;
      let failures = 0;
      child.onMessage((message) => {
        const m = message as WriterMessage;
        if ("acked" in m) acked++;
        if ("failed" in m) failures++;
      });
      const exited = child.exited.then(() => {
        throw new Error(`the writer exited early:\n${child.stderr()}`);
      });
      const meanwhile = (condition: () => boolean) => Promise.race([until(condition, 30_000), exited]);
      await meanwhile(() => acked >= 6);
      await proxy.goDown();
      const failuresBefore = failures;
      const ackedWhenDown = acked;
      await meanwhile(() => failures >= failuresBefore + 3);
      const ackedWhileDown = acked - ackedWhenDown;
      await proxy.comeUp();
      const ackedWhenUp = acked;
      await meanwhile(() => acked >= ackedWhenUp + 6);
      child.endInput();
      const outcome = await writerOutcome(child, direct, session.id);
      console.log(`postgres restart: ${JSON.stringify({ ackedWhileDown, ...outcome }, null, 1)}`);
      expect(outcome.exit, outcome.stderr).toEqual({ code: 0, signal: null });
      expect(outcome.unexpected).toBe(0);
      expect(outcome.failures).not.toEqual({});
      expect(outcome.lost).toEqual([]);
      expect(outcome.duplicated).toEqual([]);
      expect(outcome.compactionsInLog).toBe(outcome.compactionsAcked);
      expect(outcome.invalid).toEqual([]);
      expect(outcome.resumeMatches).toBe(true);
      const log = await direct.store.readStream(session.id);
      await until(() => watcher.seen.length >= log.length, 20_000).catch(() => {});
      expect(watcher.errors).toEqual([]);
      expect(seqs(watcher.seen)).toEqual(range(log.length));
      expect(watcher.seen.map((e) => e.eventId)).toEqual(log.map((e) => e.eventId));
    } finally {
      watcher.stop();
    }
  });
});

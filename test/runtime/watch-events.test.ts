import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import type { ChangeFeed, EventStore, StoredEvent } from "@palimpsest/core";
import { watchEvents } from "@palimpsest/projections/live";
import pg from "pg";
import { concatMap, map, type Observable, timer } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../contract/change-feed-probe.ts";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import type { TestStore } from "../support/store-backends.ts";
import { type WatchBackend, watchBackends } from "./watch-backends.ts";

const root = join(import.meta.dirname, "../..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Subscribes and records what the Observable emits until stop(). */
function collect(events: Observable<StoredEvent>) {
  const seen: StoredEvent[] = [];
  const subscription = events.subscribe({ next: (e) => void seen.push(e), error: (e) => seen.push(e) });
  return { seen, stop: () => subscription.unsubscribe() };
}

/** Runs a test script in a child process (tsx), capturing its output. */
function runScript(script: string, args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), script, ...args], {
    cwd: root,
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { stdout: () => stdout, stderr: () => stderr, exited, kill: () => child.kill() };
}

/** Appends `count` one-message appends to a session that already has `version` events. */
async function appendMessages(store: EventStore, sessionId: string, version: number, count: number) {
  for (let i = 1; i <= count; i++) {
    await store.append(sessionId, [userMessage(`m${version + i}`, "x")], { expectedVersion: version + i - 1 });
  }
}

/** The store with its reads and feed subscriptions counted; reads may be slowed down. */
function instrumented(store: TestStore, readDelayMs = 0) {
  const stats = { reads: 0, inFlight: 0, maxInFlight: 0, listeners: 0 };
  const track = async <T>(read: () => Promise<T>): Promise<T> => {
    stats.reads++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    try {
      await sleep(readDelayMs);
      return await read();
    } finally {
      stats.inFlight--;
    }
  };
  const proxy: EventStore & ChangeFeed = {
    append: (sessionId, events, options) => store.append(sessionId, events, options),
    readStream: (sessionId, options) => track(() => store.readStream(sessionId, options)),
    knownKeys: (sessionId, keys) => store.knownKeys(sessionId, keys),
    keyedBatch: (sessionId, key) => store.keyedBatch(sessionId, key),
    readAll: (options) => track(() => store.readAll(options)),
    globalHead: () => store.globalHead(),
    getSession: (sessionId) => store.getSession(sessionId),
    listSessions: () => store.listSessions(),
    erase: (sessionId, options) => store.erase(sessionId, options),
    purgeErased: (options) => store.purgeErased(options),
    close: () => store.close(),
    listening: () => store.listening(),
    subscribe(listener) {
      stats.listeners++;
      const remove = store.subscribe(listener);
      return () => {
        stats.listeners--;
        remove();
      };
    },
  };
  return { proxy, stats };
}

const seqs = (events: StoredEvent[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

for (const backend of watchBackends() as WatchBackend[]) {
  describe.skipIf(backend.skip !== undefined)(`watchEvents (${backend.name})`, () => {
    let url: string;
    let store: TestStore;
    let other: TestStore;
    beforeAll(async () => {
      url = await backend.setup();
      store = await backend.open();
      other = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("catches up a session from a seq, then goes live on another connection's commits", async () => {
      const sid = newSessionId("from-seq");
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      await appendMessages(store, sid, 1, 4);
      const watcher = collect(watchEvents(store, { sessionId: sid, fromSeq: 3 }));
      try {
        await until(() => watcher.seen.length === 3);
        expect(seqs(watcher.seen)).toEqual([3, 4, 5]);
        await appendMessages(other, sid, 5, 2);
        await until(() => watcher.seen.length === 5);
        // A marker appended after: once it arrives, anything the first commits could still bring has come.
        await appendMessages(store, sid, 7, 1);
        await until(() => seqs(watcher.seen).includes(8));
        expect(seqs(watcher.seen)).toEqual([3, 4, 5, 6, 7, 8]);
      } finally {
        watcher.stop();
      }
    });

    it("catches up the global log from a checkpoint, then goes live", async () => {
      const [a, b] = [newSessionId("all-a"), newSessionId("all-b")];
      const { checkpoint } = await store.readAll();
      await store.append(a, [started()], { expectedVersion: "no-stream" });
      await store.append(b, [started(), userMessage("b2", "x")], { expectedVersion: "no-stream" });
      const watcher = collect(watchEvents(store, { all: true, after: checkpoint }));
      const mine = () => watcher.seen.filter((e) => e.sessionId === a || e.sessionId === b);
      try {
        await until(() => mine().length === 3);
        await other.append(a, [userMessage("a2", "y")], { expectedVersion: 1 });
        await until(() => mine().length === 4);
        expect(mine().map((e) => [e.sessionId, e.seq])).toEqual([
          [a, 1],
          [b, 1],
          [b, 2],
          [a, 2],
        ]);
        const ids = watcher.seen.map((e) => e.eventId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toEqual((await store.readAll({ after: checkpoint })).events.map((e) => e.eventId));
      } finally {
        watcher.stop();
      }
    });

    it("sees what a separate process appends, on the session and on the global log", async () => {
      const sid = newSessionId("child-writer");
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      const { checkpoint } = await store.readAll();
      const session = collect(watchEvents(store, { sessionId: sid }));
      const all = collect(watchEvents(store, { all: true, after: checkpoint }));
      try {
        await until(() => session.seen.length === 1);
        const child = runScript("test/runtime/watch-writer.script.ts", [url, sid, "2", "30"]);
        expect(await child.exited).toBe(0);
        expect(child.stderr()).toBe("");
        await until(() => session.seen.length === 30);
        await until(() => all.seen.filter((e) => e.sessionId === sid).length === 29);
        await appendMessages(store, sid, 30, 1); // a marker: everything before it has arrived once it has
        const marked = (events: StoredEvent[]) => events.some((e) => e.sessionId === sid && e.seq === 31);
        await until(() => marked(session.seen) && marked(all.seen));
        expect(seqs(session.seen)).toEqual(range(1, 31));
        expect(seqs(all.seen.filter((e) => e.sessionId === sid))).toEqual(range(2, 31));
      } finally {
        session.stop();
        all.stop();
      }
    });

    it("wakes a watcher in a separate process, which exits by itself once it unsubscribes", async () => {
      const sid = newSessionId("child-reader");
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      const child = runScript("test/runtime/watch-reader.script.ts", [url, sid, "10"]);
      try {
        await until(() => child.stdout().startsWith("ready"), 20_000);
        await appendMessages(store, sid, 1, 9);
        const exit = await Promise.race([child.exited, sleep(20_000).then(() => "still running")]);
        expect(child.stderr()).toBe("");
        expect(exit).toBe(0);
        expect(JSON.parse(child.stdout().trim().split("\n").at(-1) ?? "")).toEqual(range(1, 10));
      } finally {
        child.kill();
      }
    });

    it("gives a watcher that subscribes in the middle of concurrent writes each event once, in order", async () => {
      const writers = [store, other, await backend.open()];
      const sessions = writers.map((_, w) => newSessionId(`burst-${w}`));
      const { checkpoint } = await store.readAll();
      let appends = 0;
      const burst = Promise.all(
        writers.map(async (writer, w) => {
          const sid = sessions[w] ?? "";
          await writer.append(sid, [started()], { expectedVersion: "no-stream" });
          for (let i = 0; i < 25; i++) {
            const size = 1 + Math.floor(Math.random() * 3);
            const batch = Array.from({ length: size }, (_, k) => userMessage(`m${i}-${k}`, "x"));
            await writer.append(sid, batch, { expectedVersion: "any" });
            appends++;
          }
        }),
      );
      await until(() => appends >= 10);
      const all = collect(watchEvents(store, { all: true, after: checkpoint }, { pageSize: 16 }));
      const one = collect(watchEvents(store, { sessionId: sessions[0] ?? "" }, { pageSize: 16 }));
      try {
        await burst;
        const versions = await Promise.all(sessions.map(async (sid) => (await store.getSession(sid))?.version ?? 0));
        const total = versions.reduce((sum, v) => sum + v, 0);
        const ours = () => all.seen.filter((e) => sessions.includes(e.sessionId));
        await until(() => ours().length === total && one.seen.length === versions[0]);
        // A marker on the first session, committed after the burst: when both watchers have it, nothing
        // from the burst is still on its way.
        const first = sessions[0] ?? "";
        const last = versions[0] ?? 0;
        await store.append(first, [userMessage("marker", "x")], { expectedVersion: last });
        const marked = (events: StoredEvent[]) => events.some((e) => e.sessionId === first && e.seq === last + 1);
        await until(() => marked(all.seen) && marked(one.seen));
        expect(ours()).toHaveLength(total + 1);
        for (const [w, sid] of sessions.entries()) {
          expect(seqs(ours().filter((e) => e.sessionId === sid))).toEqual(
            range(1, (versions[w] ?? 0) + (w === 0 ? 1 : 0)),
          );
        }
        expect(seqs(one.seen)).toEqual(range(1, last + 1));
        const ids = all.seen.map((e) => e.eventId);
        expect(new Set(ids).size).toBe(ids.length);
      } finally {
        all.stop();
        one.stop();
      }
    });

    it("reads again once its feed is listening, so a commit made elsewhere while it connected is not missed", async () => {
      const sid = newSessionId("connecting");
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      const { proxy, stats } = instrumented(store);
      // A feed still connecting, as listening() says until `connect()`: the wake-up for seq 2 never comes.
      let live = false;
      let connect = () => {};
      const connected = new Promise<void>((resolve) => {
        connect = resolve;
      });
      const connecting: EventStore & ChangeFeed = {
        ...proxy,
        listening: () => (live ? undefined : connected),
        subscribe: (listener) => proxy.subscribe((change) => change.version > 2 && listener(change)),
      };
      const watcher = collect(watchEvents(connecting, { sessionId: sid }));
      try {
        await until(() => watcher.seen.length === 1 && stats.inFlight === 0);
        await other.append(sid, [userMessage("unheard", "x")], { expectedVersion: 1 }); // its wake-up is lost
        const readsBefore = stats.reads;
        live = true;
        connect();
        await until(() => watcher.seen.length === 2, 10_000);
        expect(stats.reads).toBeGreaterThan(readsBefore);
        expect(seqs(watcher.seen)).toEqual([1, 2]);
      } finally {
        watcher.stop();
      }
    });

    it.skipIf(backend.name !== "postgres")(
      "sees a commit hidden behind an older transaction when its feed started, once that transaction ends",
      async () => {
        const sid = newSessionId("hidden-at-start");
        const { checkpoint } = await store.readAll();
        const fresh = await backend.open(); // no listener yet: its feed's first connection starts below
        const holder = new pg.Client({ connectionString: url });
        await holder.connect();
        try {
          await holder.query("BEGIN");
          await holder.query("SELECT pg_current_xact_id()"); // an older xid: the barrier stops below it
          await other.append(sid, [started()], { expectedVersion: "no-stream" }); // committed, hidden, unheard
          const { proxy, stats } = instrumented(fresh);
          const all = collect(watchEvents(proxy, { all: true, after: checkpoint }));
          try {
            await fresh.listening();
            await until(() => stats.reads >= 2 && stats.inFlight === 0); // the first read, and the one at listening
            expect(all.seen.filter((e) => e.sessionId === sid)).toEqual([]);
            await holder.query("COMMIT"); // writes nothing, notifies no one
            await until(() => all.seen.some((e) => e.sessionId === sid), 10_000);
          } finally {
            all.stop();
          }
        } finally {
          await holder.end();
        }
      },
    );

    it.skipIf(backend.name !== "postgres")(
      "re-reads, without another wake-up, a commit that was hidden behind an older open transaction",
      async () => {
        const sid = newSessionId("hidden");
        const { checkpoint } = await store.readAll();
        const { proxy, stats } = instrumented(store);
        const all = collect(watchEvents(proxy, { all: true, after: checkpoint }));
        const holder = new pg.Client({ connectionString: url });
        await holder.connect();
        try {
          await holder.query("BEGIN");
          await holder.query("SELECT pg_current_xact_id()"); // an older xid: the barrier stops below it
          await other.append(sid, [started()], { expectedVersion: "no-stream" }); // its wake-up reads nothing yet
          // A read the watcher began after that commit, and finished (one read in flight at most).
          const readsBefore = stats.reads;
          await until(() => stats.reads > readsBefore && stats.inFlight === 0);
          expect(all.seen.filter((e) => e.sessionId === sid)).toEqual([]);
          await holder.query("COMMIT"); // writes nothing, notifies no one
          await until(() => all.seen.some((e) => e.sessionId === sid), 5_000);
        } finally {
          all.stop();
          await holder.end();
        }
      },
    );

    it("serves a slow subscriber everything once, one read in flight, and releases the feed on unsubscribe", async () => {
      const sid = newSessionId("slow");
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      const { proxy, stats } = instrumented(store, 20);
      const slow = collect(
        watchEvents(proxy, { sessionId: sid }, { pageSize: 4 }).pipe(concatMap((e) => timer(2).pipe(map(() => e)))),
      );
      await until(() => slow.seen.length === 1);
      const readsBefore = stats.reads;
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store.append(sid, [userMessage(`s${i}`, "x")], { expectedVersion: "any" }),
        ),
      );
      await until(() => slow.seen.length === 41);
      await store.append(sid, [userMessage("marker", "x")], { expectedVersion: 41 }); // arrives after all the rest
      await until(() => slow.seen.length >= 42 && slow.seen.at(-1)?.seq === 42);
      expect(seqs(slow.seen)).toEqual(range(1, 42));
      expect(stats.maxInFlight).toBe(1);
      // 41 wake-ups, most of them heard while a read was in flight: they collapse into far fewer reads.
      expect(stats.reads - readsBefore).toBeLessThan(31);
      expect(stats.listeners).toBe(1);
      slow.stop();
      expect(stats.listeners).toBe(0);
      const readsStopped = stats.reads;
      // Another listener hears the next commit: the stopped watcher would have been woken by then.
      const heard = new Promise<void>((resolve) => {
        const off = store.subscribe((change) => {
          if (change.sessionId !== sid) return;
          off();
          resolve();
        });
      });
      await store.append(sid, [userMessage("after", "x")], { expectedVersion: 42 });
      await heard;
      expect(slow.seen).toHaveLength(42);
      expect(stats.reads).toBe(readsStopped);
    });
  });
}

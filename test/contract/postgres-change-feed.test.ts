import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { StoreChange } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import type { TestStore } from "../support/store-backends.ts";
import { until, untilHeard } from "./change-feed-probe.ts";
import { newSessionId, started, userMessage } from "./fixtures.ts";

const server = postgresServer();
const root = join(import.meta.dirname, "../..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A listener that records what it hears. */
function recorder() {
  const heard: StoreChange[] = [];
  return {
    heard,
    listener: (change: StoreChange) => void heard.push(change),
    of: (sessionId: string) => heard.filter((c) => c.sessionId === sessionId),
  };
}

describe.skipIf("skip" in server)("cross-process change notification on PostgreSQL", () => {
  let database: ScratchDatabase;
  let admin: pg.Client;
  /** Two stores on the same database, each with its own pool: two "processes". */
  let a: TestStore;
  let b: TestStore;
  const stores: TestStore[] = [];
  const open = async () => {
    const store = await openEventStore(database.url);
    stores.push(store);
    return store;
  };
  /** The open LISTEN connections on the test database (one per store that has subscribers). */
  const listening = async () =>
    (
      await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity " +
          "WHERE datname = current_database() AND application_name = 'palimpsest-changes'",
      )
    ).rows[0]?.n;
  /** Resolves once a connection on the test database waits for a lock (polled: there is no event to wait on). */
  const untilWaitingOnLock = async () => {
    for (const deadline = Date.now() + 10_000; ; ) {
      const { rowCount } = await admin.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if ((rowCount ?? 0) > 0) return;
      if (Date.now() > deadline) throw new Error("no connection waited for a lock");
      await sleep(5);
    }
  };

  beforeAll(async () => {
    database = await createScratchDatabase("url" in server ? server.url : "", "changes");
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    a = await open();
    b = await open();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await admin?.end();
    await database?.drop();
  });

  it("wakes a subscriber on store B after an append through store A commits, once, with its session and version", async () => {
    const onB = recorder();
    const onA = recorder();
    const stopB = b.subscribe(onB.listener);
    const stopA = a.subscribe(onA.listener);
    try {
      // Both live: a first connection's catch-up may repeat a wake-up (harmless), but only before it is live.
      await untilHeard(a, b);
      await untilHeard(b, a);
      const sid = newSessionId("cross");
      await a.append(sid, [started()], { expectedVersion: "no-stream" });
      await a.append(sid, [userMessage("m1", "one"), userMessage("m2", "two")], { expectedVersion: 1 });
      await until(() => onB.of(sid).length === 2);
      // A marker committed after: once both have heard it, nothing more of the first two is on its way.
      await a.append(sid, [userMessage("m3", "three")], { expectedVersion: 3 });
      await until(() => onB.of(sid).length >= 3 && onA.of(sid).length >= 3);
      expect(onB.of(sid)).toEqual([
        { sessionId: sid, version: 1 },
        { sessionId: sid, version: 3 },
        { sessionId: sid, version: 4 },
      ]);
      // A told its own listener in process and skips its own notifications: no duplicates.
      expect(onA.of(sid)).toEqual(onB.of(sid));
    } finally {
      stopA();
      stopB();
    }
  });

  it("does not wake anyone before the append commits, nor for an append that rolls back", async () => {
    const onB = recorder();
    const stop = b.subscribe(onB.listener);
    await untilHeard(a, b);
    const sid = newSessionId("held");
    await a.append(sid, [started()], { expectedVersion: "no-stream" });
    await until(() => onB.of(sid).length === 1);

    // A transaction holds the session's row: A's append waits behind it, B hears nothing meanwhile.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("UPDATE sessions SET updated_at = now() WHERE session_id = $1", [sid]);
    const blocked = a.append(sid, [userMessage("m1", "one")], { expectedVersion: 1 });
    await untilWaitingOnLock();
    await untilHeard(a, b); // B hears a later commit, and still nothing of the blocked append
    expect(onB.of(sid)).toHaveLength(1);
    await holder.query("COMMIT");
    await blocked;
    await until(() => onB.of(sid).length === 2);
    expect(onB.of(sid)[1]).toEqual({ sessionId: sid, version: 2 });

    // The append's statement runs pg_notify, then fails on an idempotency key committed meanwhile:
    // rolled back, it notifies no one.
    await holder.query("BEGIN");
    await holder.query(
      "INSERT INTO idempotency_keys (session_id, tenant_id, idempotency_key, content_hash, first_seq, last_seq) " +
        "VALUES ($1, 'default', 'k', 'other', 3, 3)",
      [sid],
    );
    const conflicting = a.append(sid, [userMessage("m2", "two")], { expectedVersion: 2, idempotencyKey: "k" });
    await untilWaitingOnLock(); // past its pg_notify, waiting on the key the holder inserted
    await holder.query("COMMIT");
    await expect(conflicting).rejects.toThrow();
    await holder.end();
    await untilHeard(a, b);
    expect(onB.of(sid)).toHaveLength(2);
    stop();
  });

  it("stops delivering on unsubscribe, and closes the LISTEN connection with the last listener and on close()", async () => {
    const c = await open();
    const kept = recorder();
    const dropped = recorder();
    const stopKept = c.subscribe(kept.listener);
    const stopDropped = c.subscribe(dropped.listener);
    await untilHeard(a, c);
    stopDropped();
    const sid = newSessionId("unsub");
    await a.append(sid, [started()], { expectedVersion: "no-stream" });
    await until(() => kept.of(sid).length === 1);
    expect(dropped.of(sid)).toEqual([]);

    const before = await listening();
    stopKept();
    await expect.poll(listening).toBe((before ?? 0) - 1);
    c.subscribe(kept.listener);
    await expect.poll(listening).toBe(before);
    await c.close();
    await expect.poll(listening).toBe((before ?? 0) - 1);
  });

  it("reconnects after losing its connection, reporting once on stderr", async () => {
    const onB = recorder();
    const stop = b.subscribe(onB.listener);
    await untilHeard(a, b);
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity " +
          "WHERE datname = current_database() AND application_name = 'palimpsest-changes'",
      );
      await untilHeard(a, b);
      expect(stderr).toHaveBeenCalledOnce();
      expect(String(stderr.mock.calls[0]?.[0])).toContain("lost the change-notification connection");
    } finally {
      stderr.mockRestore();
    }
    // The probe heard above may have come by notification before the new connection's catch-up ran, so
    // that catch-up can repeat this append's wake-up (harmless by design): at least one, all of version 1.
    const sid = newSessionId("reconnected");
    await a.append(sid, [started()], { expectedVersion: "no-stream" });
    await until(() => onB.of(sid).length > 0);
    expect(new Set(onB.of(sid).map((change) => change.version))).toEqual(new Set([1]));
    stop();
  });

  it("names a session id too long for a payload by its hash, and listeners still get the id", async () => {
    const onB = recorder();
    const stop = b.subscribe(onB.listener);
    await untilHeard(a, b);
    // No append takes such an id any more (ID_LIMITS.session); a session stored under one before the
    // limits still reads and is erased, and its erasure is heard. Its id compresses to fit the index.
    const sid = `${newSessionId("long")}-${"é".repeat(5000)}`;
    await expect(a.append(sid, [started()], { expectedVersion: "no-stream" })).rejects.toMatchObject({
      code: "VALIDATION",
      details: { path: "sessionId" },
    });
    await admin.query(
      "INSERT INTO sessions (session_id, version, view_version, created_at, updated_at, tenant_id) " +
        "VALUES ($1, 1, 0, now(), now(), 'default')",
      [sid],
    );
    await admin.query(
      "INSERT INTO events (event_id, session_id, seq, type, schema_version, occurred_at, recorded_at, tenant_id, data) " +
        `VALUES (gen_random_uuid(), $1, 1, 'session.started', 1, now(), now(), 'default', '{"encoding":"o200k_base"}')`,
      [sid],
    );
    expect((await a.readStream(sid)).map((e) => e.type)).toEqual(["session.started"]);
    await a.erase(sid);
    await until(() => onB.of(sid).length === 1);
    expect(onB.of(sid)).toEqual([{ sessionId: sid, version: 2 }]);
    stop();
  });

  it("lets a process that closed its stores exit by itself", () => {
    const run = spawnSync(
      process.execPath,
      [join(root, "node_modules/tsx/dist/cli.mjs"), "test/contract/change-feed-exit.script.ts", database.url],
      { cwd: root, encoding: "utf8", timeout: 30_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ sessionId: "exit-check", version: 1 });
  });
});

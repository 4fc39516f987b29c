import { StorageError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSessionId, started } from "../contract/fixtures.ts";
import { waitingForLock } from "../support/lock-wait.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { databaseOf, sqlStoreOf } from "../support/store-database.ts";
import { faultCount, faultSeed } from "./fault-scale.ts";
import {
  startFaultWriter,
  terminateBackends,
  terminateCounting,
  WRITER_APP,
  type WriterMessage,
  withApplicationName,
  writerOutcome,
} from "./postgres-fault-writer.ts";

const server = postgresServer();

/** The application_name of the in-process probes' stores. */
const PROBE_APP = "palimpsest-drop-probe";

/** Chance that an operation's start gets a termination, and the longest delay after it (ms). */
const INJECT = {
  append: { chance: 0.4, maxDelayMs: 4 },
  read: { chance: 0.2, maxDelayMs: 2 },
  compact: { chance: 0.9, maxDelayMs: 25 },
} as const;

describe.skipIf("skip" in server)("PostgreSQL faults: the writer's backends terminated", () => {
  let database: ScratchDatabase;
  let admin: pg.Client;
  let runtime: Palimpsest;
  let name: string;
  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "pgterm");
    name = new URL(database.url).pathname.slice(1);
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    runtime = new Palimpsest({ store: await openEventStore(database.url), counterFor: createTokenCounter });
  });
  afterAll(async () => {
    await runtime?.store.close();
    await admin?.end();
    await database?.drop();
  });

  /** A store whose connections carry PROBE_APP, so a test can find and terminate exactly them. */
  const probeStore = async () => openEventStore(withApplicationName(database.url, PROBE_APP));

  it("a guarded write whose backend is terminated under it fails with a retryable STORAGE error; the next one works", async () => {
    const store = sqlStoreOf(await probeStore());
    try {
      // writeGuarded runs `sql` and `parameters` of its compiled queries (kysely is not a dependency here).
      const raw = (text: string) =>
        ({ sql: text, parameters: [] }) as unknown as Parameters<typeof store.writeGuarded>[0];
      const failure = await store
        .writeGuarded(raw("SELECT pg_terminate_backend(pg_backend_pid())"), [])
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).details.retryable).toBe(true);
      expect(await store.writeGuarded(raw("SELECT 1"), [])).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("an erasure whose backend is terminated while it waits inside its transaction is made again by the store: it waits anew and erases once", async () => {
    const store = await probeStore();
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      const erasing = new Palimpsest({ store, counterFor: createTokenCounter });
      const session = await erasing.startSession({ model: "gpt-4o" });
      await session.append({ role: "user", content: "erase-me-under-a-dropped-connection" });
      const before = await store.readStream(session.id);
      // Another connection holds the session's row lock, so the erasure stops at its first read, in its transaction.
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM sessions WHERE session_id = $1 FOR UPDATE", [session.id]);
      const erasure = erasing.erase(session.id);
      await waitingForLock(admin, name, PROBE_APP, "the erasure");
      expect(await terminateBackends(admin, name, PROBE_APP)).toBeGreaterThan(0);
      // A dropped connection is the store's to retry: its next attempt waits for the lock again.
      await waitingForLock(admin, name, PROBE_APP, "the erasure's next attempt");
      expect(await store.readStream(session.id)).toEqual(before);
      await locker.query("ROLLBACK");
      expect((await erasure).erased).toBe(true);
      const after = await store.readStream(session.id);
      expect(after.filter((e) => e.type === "session.erased")).toHaveLength(1);
      expect(after.at(-1)?.type).toBe("session.erased");
      expect(JSON.stringify(after)).not.toContain("erase-me-under-a-dropped-connection");
    } finally {
      await locker.end();
      await store.close();
    }
  });

  it("a transaction whose connection drops between statements fails, and the process and the next call survive", async () => {
    const store = await probeStore();
    try {
      const failure = await databaseOf(store)
        .transaction()
        .execute(async (trx) => {
          await trx.selectFrom("sessions").select("session_id").execute();
          const { rows } = await admin.query<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND state = 'idle in transaction'",
            [name, PROBE_APP],
          );
          const pid = rows[0]?.pid;
          await admin.query("SELECT pg_terminate_backend($1)", [pid]);
          while ((await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).rowCount) {}
          await trx.selectFrom("sessions").select("session_id").execute();
        })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      const sid = newSessionId("after-drop");
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      expect(await store.readStream(sid)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  const target = faultCount(40, 400);
  it("mid-append, mid-read and mid-compaction: no failure reaches the writer, no crash, nothing lost or doubled", {
    timeout: 30_000 + target * 1_000,
  }, async () => {
    const seed = faultSeed();
    const random = seededRandom(seed);
    const session = await runtime.startSession({ contextWindow: 4_000, profile: "local" });
    const writer = startFaultWriter(withApplicationName(database.url, WRITER_APP), session.id);
    const injected = { append: 0, read: 0, compact: 0 };
    let running = 0; // terminations that cut a statement in flight (the others closed idle pooled connections)
    let total = 0;
    let scheduled = 0;
    writer.onMessage((message) => {
      const m = message as WriterMessage;
      // Past the target while no termination has cut a statement in flight yet, it goes on until one does.
      if (!("begin" in m) || (scheduled >= target && running > 0)) return;
      const { chance, maxDelayMs } = INJECT[m.begin];
      if (random() >= chance) return;
      scheduled++;
      setTimeout(async () => {
        const n = await terminateCounting(admin, name, WRITER_APP);
        if (n.terminated > 0) {
          injected[m.begin]++;
          running += n.running;
          total++;
        } else scheduled--; // it had no connection open at that moment: try again at a later operation
        if (total >= target && running > 0) writer.endInput();
      }, random() * maxDelayMs);
    });
    const outcome = await writerOutcome(writer, runtime, session.id);
    const figures = { seed, target, injected, running, ...outcome, stderr: outcome.stderr.slice(0, 2000) };
    console.log(`postgres terminations: ${JSON.stringify(figures, null, 1)}`);
    const context = `seed ${seed} (replay with PALIMPSEST_FAULT_SEED=${seed})`;
    expect(outcome.exit, `${context}: the writer died\n${outcome.stderr}`).toEqual({ code: 0, signal: null });
    expect(outcome.fatal, context).toEqual([]);
    expect(outcome.unexpected, context).toBe(0);
    expect(total, context).toBeGreaterThanOrEqual(target);
    expect(running, `${context}: no termination cut a statement in flight`).toBeGreaterThan(0);
    // The store reads again and the runtime appends again (once the log shows the append did not land) after
    // a dropped connection: none of it is the writer's to retry.
    expect(outcome.failures, context).toEqual({});
    expect(outcome.lost, context).toEqual([]);
    expect(outcome.duplicated, context).toEqual([]);
    expect(outcome.compactionsInLog, context).toBe(outcome.compactionsAcked);
    expect(outcome.invalid, context).toEqual([]);
    expect(outcome.resumeMatches, context).toBe(true);
  });
});

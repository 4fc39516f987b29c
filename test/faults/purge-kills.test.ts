/**
 * The erasure purge under faults, on every engine: a child process SIGKILLed at a random point of
 * `purgeErased`, two processes purging at the same moment, and (PostgreSQL) the purge's backend terminated
 * while it runs VACUUM FULL. After each, every session (kept and erased) reads back exactly as before, the
 * SQLite file passes its integrity check, and a purge then succeeds and leaves no copy of any erased
 * session's content in the database's files (the byte scan of test/runtime/purge-erased.test.ts).
 */
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isPalimpsestError, type StoredEvent } from "@palimpsest/core";
import { openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { type OpenedEventStore, openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { populatedSession, uniqueMarker } from "../runtime/erase-fixtures.ts";
import { bigToolOutput } from "../runtime/purge-fixtures.ts";
import { type DatabaseDump, dumpDatabase, withoutSearchPages } from "../support/database-scan.ts";
import { scanDatabaseFiles } from "../support/file-scan.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { integrityProblems } from "./fault-checks.ts";
import { faultDatabases } from "./fault-databases.ts";
import { bundleWorker, Worker, type WorkerMessage, type WorkerScript } from "./fault-process.ts";
import { faultCount, faultSeed } from "./fault-scale.ts";

/** Sessions kept (never erased) throughout, each compared after every fault. */
const KEPT = 3;
const KILLS = faultCount(8, 40, 3);
const RACES = faultCount(4, 20, 2);
const TERMINATIONS = faultCount(6, 30, 2);
const seed = faultSeed();

let script: WorkerScript;
beforeAll(async () => {
  script = await bundleWorker(join(import.meta.dirname, "purge-worker.ts"));
});
afterAll(() => script?.dispose());

for (const database of faultDatabases("purge")) {
  describe.skipIf(database.skip !== undefined)(`purgeErased under faults (${database.name}, seed ${seed})`, () => {
    const random = seededRandom(seed);
    let url: string;
    /** Every erased session's marker so far: none may be left in the files after a purge. */
    const erasedMarkers: string[] = [];
    const kept: { id: string; log: StoredEvent[] }[] = [];
    /** A purge's duration (ms), measured in setup and updated by every purge that completes. */
    let purgeMs = 0;

    beforeAll(async () => {
      url = await database.create();
      await withRuntime(async (runtime) => {
        for (let i = 0; i < KEPT; i++) {
          const session = await populatedSession(runtime, uniqueMarker(`kept${i}`));
          await bigToolOutput(session, uniqueMarker(`keptbig${i}`), 0);
          kept.push({ id: session.id, log: await runtime.store.readStream(session.id) });
        }
      });
      await eraseOne("setup");
      await expectPurgeLeavesNoCopy("setup");
    });
    afterAll(() => database.dispose());

    /**
     * Runs `work` on a runtime of its own, closed before this returns. This process keeps no connection
     * open between steps: the byte scan reads the SQLite files with plain reads, and closing a file
     * releases every POSIX lock this process holds on it, an open connection's included (SQLite's "How To
     * Corrupt", 2.2): that connection would then miss other processes' changes.
     */
    async function withRuntime<T>(work: (runtime: Palimpsest) => Promise<T>): Promise<T> {
      const runtime = await openPalimpsest({ url });
      try {
        return await work(runtime);
      } finally {
        await runtime.close();
      }
    }

    /** Every row of the database, read by a store of its own. */
    async function dump(): Promise<DatabaseDump> {
      return withRuntime((runtime) => dumpDatabase(runtime.store as OpenedEventStore));
    }

    /** Populates a session with a fresh marker (one tool output of 16 KiB), erases it and records the marker. */
    async function eraseOne(tag: string): Promise<void> {
      const marker = uniqueMarker(tag);
      await withRuntime(async (runtime) => {
        const session = await populatedSession(runtime, marker);
        await bigToolOutput(session, marker, 0);
        await runtime.erase(session.id, { reason: "purge fault test" });
      });
      erasedMarkers.push(marker);
    }

    /** The byte scan's hits of every erased session's marker, by where they were found. */
    async function markersLeft(): Promise<Record<string, number>> {
      return Object.fromEntries(await scanDatabaseFiles(url, erasedMarkers));
    }

    /**
     * What a fault may not change, read from new connections (a store opened for the check): every row as
     * it was, each kept log as it was, a sound SQLite file.
     */
    async function expectNothingChanged(before: DatabaseDump, what: string): Promise<void> {
      await withRuntime(async ({ store }) => {
        expect(withoutSearchPages(await dumpDatabase(store as OpenedEventStore)), what).toEqual(
          withoutSearchPages(before),
        );
        for (const { id, log } of kept) expect(await store.readStream(id), `${what}: ${id}`).toEqual(log);
      });
      expect(integrityProblems(url), what).toEqual([]);
    }

    /** A purge in this process that must succeed, then the byte scan that must find no erased content. */
    async function expectPurgeLeavesNoCopy(what: string): Promise<void> {
      const result = await withRuntime((runtime) => runtime.purgeErased());
      expect(result.relations.length, what).toBeGreaterThan(0);
      purgeMs = result.ms;
      expect(await markersLeft(), what).toEqual({});
    }

    it("a child SIGKILLed at a random point of a purge loses nothing, and the next purge leaves no copy", {
      timeout: 30_000 + KILLS * 3 * 5_000,
    }, async () => {
      const outcomes = { killedBeforeDone: 0, completedFirst: 0 };
      // KILLS rounds at least; more (up to three times as many) until a kill has landed before the purge
      // said it was done, so a run whose seeded delays all fell after the purge cannot void the test.
      for (let round = 0; round < KILLS || (outcomes.killedBeforeDone === 0 && round < 3 * KILLS); round++) {
        const what = `kill ${round}, seed ${seed}`;
        await eraseOne(`kill${round}`);
        const before = await dump();
        const worker = new Worker(script);
        await worker.send({ url });
        expect((await worker.next())?.t, what).toBe("ready");
        await worker.send({ t: "purge" });
        expect((await worker.next())?.t, what).toBe("purging");
        // The fault's timing, not a synchronization: a seeded delay of up to twice a purge's measured
        // duration, so the kill lands before, inside or after any relation's rewrite (or after the purge).
        await sleep(random() * 2 * purgeMs);
        await worker.kill();
        const lastWords = worker.drain();
        const done = lastWords.find((m) => m.t === "purged");
        if (done === undefined) outcomes.killedBeforeDone++;
        else outcomes.completedFirst++;
        if (typeof done?.ms === "number") purgeMs = done.ms; // the child's own purge time, for the next delay
        expect(
          lastWords.filter((m) => m.t === "failed"),
          what,
        ).toEqual([]);
        await expectNothingChanged(before, what);
        await expectPurgeLeavesNoCopy(what);
      }
      console.log(`purge kills (${database.name}, seed ${seed}): ${JSON.stringify(outcomes)}`);
      expect(outcomes.killedBeforeDone).toBeGreaterThan(0);
    });

    it("two processes purging at the same moment both complete (or fail retryable STORAGE), and nothing is lost", {
      timeout: 30_000 + RACES * 5_000,
    }, async () => {
      const outcomes = { bothPurged: 0, oneFailedRetryable: 0 };
      for (let round = 0; round < RACES; round++) {
        const what = `race ${round}, seed ${seed}`;
        await eraseOne(`race${round}`);
        // A store that stays open in this process through both purges (no byte scan until it is closed):
        // it must read every row as before, as must one opened afterwards.
        const observer = await openEventStore(url);
        const before = await dumpDatabase(observer);
        const workers = [new Worker(script), new Worker(script)];
        try {
          await Promise.all(workers.map((w) => w.send({ url })));
          for (const w of workers) expect((await w.next())?.t, what).toBe("ready");
          // Both told at once; each says "purging" as it calls purgeErased.
          await Promise.all(workers.map((w) => w.send({ t: "purge" })));
          const results: WorkerMessage[] = [];
          for (const w of workers) {
            expect((await w.next())?.t, what).toBe("purging");
            const result = await w.next();
            if (result === undefined) throw new Error(`${what}: a purging worker exited: ${w.stderr}`);
            results.push(result);
          }
          const failed = results.filter((r) => r.t !== "purged");
          for (const f of failed) {
            expect(f, what).toMatchObject({ t: "failed", palimpsest: true, code: "STORAGE", retryable: true });
          }
          expect(failed.length, `${what}: at least one purge completes`).toBeLessThan(2);
          outcomes[failed.length === 0 ? "bothPurged" : "oneFailedRetryable"]++;
          await Promise.all(workers.map((w) => w.send({ t: "close" })));
          for (const w of workers) expect(await w.exited, `${what}: ${w.stderr}`).toEqual({ code: 0, signal: null });
          expect(withoutSearchPages(await dumpDatabase(observer)), `${what}: a store open throughout`).toEqual(
            withoutSearchPages(before),
          );
        } finally {
          for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) await w.kill();
          await observer.close();
        }
        // A purge that completed covers every session erased before it began: no copy is left already.
        expect(await markersLeft(), what).toEqual({});
        await expectNothingChanged(before, what);
        await expectPurgeLeavesNoCopy(what);
      }
      console.log(`purge races (${database.name}, seed ${seed}): ${JSON.stringify(outcomes)}`);
    });

    it.skipIf(database.name !== "postgres")(
      "a purge whose VACUUM FULL backend is terminated fails retryable STORAGE (or completes), loses nothing, and the next purge leaves no copy",
      { timeout: 30_000 + TERMINATIONS * 5_000 },
      async () => {
        const name = new URL(url).pathname.slice(1);
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        // A store of its own, so the pool whose connection is terminated is the purge's alone.
        const purger = await openEventStore(url);
        const outcomes = { failedRetryable: 0, completed: 0, terminatedWaitingForLock: 0, terminatedRewriting: 0 };
        try {
          for (let round = 0; round < TERMINATIONS; round++) {
            const what = `termination ${round}, seed ${seed}`;
            await eraseOne(`term${round}`);
            const before = await dump();
            // Half the rounds hold one of the purge's tables from another connection (a lock, no snapshot:
            // the purge does not wait for it as an older transaction), so the termination surely lands
            // while VACUUM FULL waits for that table's lock, after the tables before it were rewritten.
            const locker = round % 2 === 1 ? new pg.Client({ connectionString: url }) : undefined;
            if (locker !== undefined) {
              await locker.connect();
              await locker.query("BEGIN");
              await locker.query(
                `LOCK TABLE ${["snapshots", "handoffs", "mirror_keys"][round % 3]} IN ACCESS SHARE MODE`,
              );
            }
            let settled = false;
            const purging = purger.purgeErased().then(
              (result) => ({ result }),
              (error: unknown) => ({ error }),
            );
            void purging.finally(() => {
              settled = true;
            });
            // Polled: the server is the only one to say when the purge's VACUUM runs (no event to wait on).
            let pid: number | undefined;
            let waiting = false;
            let terminated = "";
            while (pid === undefined && !settled) {
              const { rows } = await admin.query<{ pid: number; wait: string | null; query: string }>(
                `SELECT pid, wait_event_type AS wait, query FROM pg_stat_activity
                  WHERE datname = $1 AND pid <> pg_backend_pid() AND state = 'active' AND query ILIKE 'VACUUM%'`,
                [name],
              );
              // With a locker, the VACUUM that waits for its table (the ones before it run without waiting).
              const row = locker === undefined ? rows[0] : rows.find((r) => r.wait === "Lock");
              pid = row?.pid;
              waiting = row?.wait === "Lock";
              terminated = row?.query ?? "";
            }
            if (pid !== undefined) {
              // The fault's timing: a seeded delay of up to a tenth of a purge, so the termination lands at
              // different points of a rewrite (none while it waits for a lock: it waits until terminated).
              if (!waiting) await sleep(random() * 0.1 * purgeMs);
              const { rows } = await admin.query<{ ok: boolean }>("SELECT pg_terminate_backend($1) AS ok", [pid]);
              if (rows[0]?.ok === true) outcomes[waiting ? "terminatedWaitingForLock" : "terminatedRewriting"]++;
            }
            const outcome = await purging;
            await locker?.end();
            if ("error" in outcome) {
              const error = outcome.error;
              expect(isPalimpsestError(error) ? { code: error.code, retryable: error.retryable } : error, what).toEqual(
                { code: "STORAGE", retryable: true },
              );
              outcomes.failedRetryable++;
            } else outcomes.completed++;
            if (locker !== undefined) expect("error" in outcome, `${what}: terminated while it waited`).toBe(true);
            await expectNothingChanged(before, what);
            // The same store purges again: its pool did not keep the terminated connection.
            const again = await purger.purgeErased();
            expect(again.relations.length, what).toBeGreaterThan(0);
            const cut = "error" in outcome ? String(outcome.error) : "completed";
            expect(await markersLeft(), `${what}: after terminating ${terminated} (${cut})`).toEqual({});
          }
        } finally {
          await purger.close();
          await admin.end();
        }
        console.log(`purge terminations (seed ${seed}): ${JSON.stringify(outcomes)}`);
        expect(outcomes.failedRetryable).toBeGreaterThan(0);
      },
    );
  });
}

/**
 * Waiting for another process's SQLite write lock: a child process holds the lock for HOLD_MS while this
 * process writes once, and a setImmediate chain measures the event loop's longest stall during the write.
 * The old mechanism (SQLite's busy_timeout: a BEGIN IMMEDIATE transaction that sleeps inside the call) runs
 * on a raw connection; the new one is the store's append (busy answers retried on timers). The control
 * waits HOLD_MS without writing: the stalls a loaded machine makes anyway.
 */
import { createRequire } from "node:module";
import { openEventStore } from "@palimpsest/store";
import type BetterSqlite3 from "better-sqlite3";
import { forkSqliteProcess } from "../test/faults/sqlite-process.ts";
import { median, progress } from "./stats.ts";
import { messageEvents, STARTED } from "./workload.ts";

/** better-sqlite3 is a dependency of @palimpsest/store, not of the root: resolve it from there. */
const Database = createRequire(new URL("../packages/store/package.json", import.meta.url))(
  "better-sqlite3",
) as typeof BetterSqlite3;

/** How long the other process holds the lock in each rep. */
const HOLD_MS = 1_000;

/** One mechanism: the write's wait and the loop's longest stall during it (medians over the reps). */
export interface SqliteLockResult {
  mechanism: "busy_timeout (old)" | "retry on timers (new)" | "no write (machine's noise)";
  holdMs: number;
  reps: number;
  waitMs: number;
  maxLoopGapMs: number;
}

/** The longest gap between two turns of the event loop while `write` runs, and how long it took. */
async function loopGapDuring(write: () => unknown): Promise<{ waitMs: number; maxGapMs: number }> {
  let running = true;
  let last = performance.now();
  let maxGapMs = 0;
  const turn = () => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  const start = performance.now();
  await write();
  const waitMs = performance.now() - start;
  running = false;
  turn();
  return { waitMs, maxGapMs };
}

/** Runs both mechanisms against a child holding the lock of `file` for HOLD_MS, `quick` with fewer reps. */
export async function runSqliteLockBench(file: string, quick: boolean): Promise<SqliteLockResult[]> {
  const reps = quick ? 3 : 5;
  const holder = await forkSqliteProcess();
  const store = await openEventStore(file);
  const raw = new Database(file);
  raw.pragma("busy_timeout = 5000");
  raw.exec("CREATE TABLE IF NOT EXISTS bench_lock (n INTEGER)");
  const rawWrite = raw.transaction(() => raw.prepare("INSERT INTO bench_lock (n) VALUES (1)").run());
  let version = (await store.append("lock", [STARTED], { expectedVersion: "no-stream" })).nextExpectedVersion;
  const writes: Record<SqliteLockResult["mechanism"], () => Promise<unknown> | unknown> = {
    "busy_timeout (old)": () => rawWrite.immediate(),
    "retry on timers (new)": async () => {
      const result = await store.append("lock", messageEvents(version, version + 1), { expectedVersion: version });
      version = result.nextExpectedVersion;
    },
    "no write (machine's noise)": () => new Promise((resolve) => setTimeout(resolve, HOLD_MS)),
  };
  const results: SqliteLockResult[] = [];
  try {
    for (const [mechanism, write] of Object.entries(writes) as [SqliteLockResult["mechanism"], () => unknown][]) {
      progress(`sqlite-lock: ${mechanism}`);
      const waits: number[] = [];
      const gaps: number[] = [];
      for (let rep = 0; rep < reps; rep++) {
        await holder.request({ op: "hold", file, releaseAfterMs: HOLD_MS });
        const { waitMs, maxGapMs } = await loopGapDuring(write);
        waits.push(waitMs);
        gaps.push(maxGapMs);
      }
      results.push({ mechanism, holdMs: HOLD_MS, reps, waitMs: median(waits), maxLoopGapMs: median(gaps) });
    }
  } finally {
    raw.close();
    await store.close();
    await holder.stop();
  }
  return results;
}

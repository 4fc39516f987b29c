/**
 * The purge of erased content (`store.purgeErased`) and the writers it holds up: a log of 10,000 and
 * 100,000 events (sessions of 1,000 bench messages, a tenth of them erased) is purged while another process
 * appends one message at a time to sessions of its own (test/support/steady-writer.ts, through a runtime
 * Session). Reported: the purge's time and the longest rewrite (PostgreSQL: the events table, locked for
 * that long), and the writer's append latency during the purge (p99 and max over the appends in flight
 * while it ran) against the same writer's latency just before it, as ratios. On PostgreSQL also with the
 * log divided into partitions (partitionLog), which the purge rewrites one at a time.
 */
import { openEventStore, partitionLog } from "@palimpsest/store";
import { startScript } from "../test/support/child-script.ts";
import { layoutName } from "./databases.ts";
import { percentile, progress } from "./stats.ts";
import { messageEvents, STARTED } from "./workload.ts";

/** Messages per session of the purged log (one append of STARTED and these, in batches of 500). */
const SESSION_MESSAGES = 999;

/** How long the writer's latency is sampled before the purge (the baseline), ms. */
const BASELINE_MS = 3_000;

/** One log size on one engine. */
export interface PurgeEraseResult {
  engine: "postgres" | "sqlite";
  /** PostgreSQL: the hash partitions each log table was divided into (partitionLog), 0 for plain tables. */
  partitions: number;
  events: number;
  erasedSessions: number;
  /** The database's size the purge measured (PostgreSQL: the rewritten tables; SQLite: the file and WAL), before and after. */
  bytesBefore: number;
  bytesAfter: number;
  purgeMs: number;
  waitedMs: number;
  /** The longest single rewrite: on PostgreSQL, how long one table was locked against readers and writers. */
  longestRewrite: { name: string; ms: number };
  /** The writer's appends: before the purge (baseline) and in flight while it ran. */
  baseline: LatencySample;
  during: LatencySample;
  writerErrors: number;
}

/** Append latencies of a window: how many, p99 and max (ms). */
export interface LatencySample {
  appends: number;
  p99Ms: number;
  maxMs: number;
}

/** A line the writer prints. */
type WriterLine = { stored?: string; at?: number; ms?: number; error?: string };

/** Now on the wall clock, comparable with the writer's `at` (same machine). */
const wallClock = () => performance.timeOrigin + performance.now();

/** The appends of `lines` in flight at some point between `from` and `to` (wall clock). */
function sample(lines: readonly WriterLine[], from: number, to: number): LatencySample {
  const ms = lines.flatMap((l) =>
    l.at === undefined || l.ms === undefined || l.at - l.ms >= to || l.at <= from ? [] : [l.ms],
  );
  return { appends: ms.length, p99Ms: percentile(ms, 0.99), maxMs: Math.max(0, ...ms) };
}

/** Waits until `predicate` holds, polling. */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Purges a log of each size (a fresh database each, from `databaseFor`) under a steady writer. */
export async function runPurgeErasedBench(
  engine: "postgres" | "sqlite",
  databaseFor: (label: string) => Promise<string>,
  quick: boolean,
  partitions = 0,
): Promise<PurgeEraseResult[]> {
  const sizes = quick ? [10_000] : [10_000, 100_000];
  const results: PurgeEraseResult[] = [];
  for (const events of sizes) {
    const url = await databaseFor(`purge_${events}_${partitions}`);
    if (partitions > 0) await partitionLog(url, { partitions });
    const store = await openEventStore(url);
    const sessions = Math.ceil(events / (SESSION_MESSAGES + 1));
    const erasedSessions = Math.ceil(sessions / 10);
    let writer: ReturnType<typeof startScript> | undefined;
    try {
      for (let s = 0; s < sessions; s++) {
        const sessionId = `purge-bench-${s}`;
        let version = 0;
        for (let from = 0; from < SESSION_MESSAGES; from += 500) {
          const batch = messageEvents(from, Math.min(SESSION_MESSAGES, from + 500));
          const result = await store.append(sessionId, version === 0 ? [STARTED, ...batch] : batch, {
            expectedVersion: version === 0 ? "no-stream" : version,
          });
          version = result.nextExpectedVersion;
        }
      }
      for (let s = 0; s < erasedSessions; s++) await store.erase(`purge-bench-${s * 10}`);
      writer = startScript("test/support/steady-writer.ts", [url, "3"]);
      const lines = writer.messages as WriterLine[];
      await until(() => lines.some((l) => l.stored !== undefined));
      const baselineStart = wallClock();
      await new Promise((resolve) => setTimeout(resolve, BASELINE_MS));
      const purgeStart = wallClock();
      const purged = await store.purgeErased();
      const purgeEnd = wallClock();
      // The appends blocked by the purge's last rewrite finish after it: wait for one that began after it.
      await until(() => lines.some((l) => l.at !== undefined && l.ms !== undefined && l.at - l.ms > purgeEnd));
      writer.endInput();
      await writer.exited;
      const longest = purged.relations.reduce((a, b) => (b.ms > a.ms ? b : a));
      const result: PurgeEraseResult = {
        engine,
        partitions,
        events: sessions * (SESSION_MESSAGES + 1),
        erasedSessions,
        bytesBefore: purged.relations.reduce((n, r) => n + r.bytesBefore, 0),
        bytesAfter: purged.relations.reduce((n, r) => n + r.bytesAfter, 0),
        purgeMs: purgeEnd - purgeStart,
        waitedMs: purged.waitedMs,
        longestRewrite: { name: longest.name.replace(/^.*\//, ""), ms: longest.ms },
        baseline: sample(lines, baselineStart, purgeStart),
        during: sample(lines, purgeStart, purgeEnd),
        writerErrors: lines.filter((l) => l.error !== undefined).length,
      };
      progress(
        `purge-erased ${layoutName(engine, partitions)} ${result.events}: ${result.purgeMs.toFixed(0)} ms, appends during p99 ` +
          `${result.during.p99Ms.toFixed(1)} ms (baseline ${result.baseline.p99Ms.toFixed(1)} ms), errors ${result.writerErrors}`,
      );
      results.push(result);
    } finally {
      writer?.endInput();
      await writer?.exited;
      await store.close();
    }
  }
  return results;
}

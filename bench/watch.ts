/**
 * Live views: wake-up latency from an append's commit (in another process, and through the same store)
 * to a watchEvents emission, PostgreSQL NOTIFY against SQLite's poll at 100 and 20 ms; and a
 * watchEvents({all}) consumer catching up on the log against paging it with readAll alone.
 */
import { watchEvents } from "@palimpsest/projections/live";
import { type OpenedEventStore, openEventStore } from "@palimpsest/store";
import { readWholeLog } from "./audit.ts";
import { forkBenchChild, wallClock } from "./bench-child.ts";
import { median, progress, timed } from "./stats.ts";
import { buildSession, messageEvents, STARTED } from "./workload.ts";

/** Wake-up latencies of one way of hearing commits. */
export interface WakeResult {
  engine: "postgres" | "sqlite";
  /** How the watcher hears: NOTIFY, or the SQLite poll interval in ms. */
  pollMs: number | undefined;
  /** Where the append ran: another process, or the watcher's own store. */
  writer: "other process" | "same store";
  samples: number;
  medianMs: number;
  p95Ms: number;
}

/** A global watcher catching up on the whole log against readAll paging of it (the same page size). */
export interface WatchCatchUpResult {
  engine: "postgres" | "sqlite";
  events: number;
  reps: number;
  watchMs: number;
  readAllMs: number;
}

/** Everything the watch bench measured on one engine. */
export interface WatchResult {
  wake: WakeResult[];
  catchUp: WatchCatchUpResult;
}

/** watchEvents' default page size, used for the readAll baseline too. */
const PAGE = 500;

function p95(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)] ?? 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Appends one message at a time (after a random pause up to 100 ms, so commits fall anywhere in a poll
 * period) and measures commit-to-emission for each: from the time the append returned to its writer.
 */
async function wakeLatencies(
  store: OpenedEventStore,
  url: string,
  sessionId: string,
  samples: number,
): Promise<{ other: number[]; same: number[] }> {
  let version = (await store.append(sessionId, [STARTED], { expectedVersion: "no-stream" })).nextExpectedVersion;
  const child = await forkBenchChild(url, sessionId);
  const emitted = new Map<number, number>();
  const waiters = new Map<number, (at: number) => void>();
  const subscription = watchEvents(store, { sessionId, fromSeq: version + 1 }).subscribe((event) => {
    const at = wallClock();
    emitted.set(event.seq, at);
    waiters.get(event.seq)?.(at);
  });
  const emission = (seq: number) =>
    new Promise<number>((resolve) => {
      const at = emitted.get(seq);
      if (at === undefined) waiters.set(seq, resolve);
      else resolve(at);
    });
  const other: number[] = [];
  const same: number[] = [];
  try {
    for (let i = -2; i < samples; i++) {
      await sleep(Math.random() * 100);
      const reply = await child.request({ type: "append" });
      if (reply.type !== "appended") throw new Error("watch bench: the child did not append");
      const heard = await emission(reply.seq);
      version = reply.seq;
      await sleep(Math.random() * 100);
      const result = await store.append(sessionId, messageEvents(version, version + 1), { expectedVersion: version });
      const committed = wallClock();
      version = result.nextExpectedVersion;
      const heardSame = await emission(version);
      if (i < 0) continue; // warmup
      other.push(heard - reply.at);
      same.push(heardSame - committed);
    }
  } finally {
    subscription.unsubscribe();
    await child.stop();
  }
  return { other, same };
}

async function wakeFigures(
  engine: WakeResult["engine"],
  url: string,
  pollMs: number | undefined,
  quick: boolean,
): Promise<WakeResult[]> {
  const store = await openEventStore(url, pollMs === undefined ? {} : { sqlitePollMs: pollMs });
  const samples = quick ? 15 : 50;
  try {
    const { other, same } = await wakeLatencies(store, url, `wake-${pollMs ?? "notify"}`, samples);
    const row = (writer: WakeResult["writer"], values: number[]): WakeResult => ({
      engine,
      pollMs,
      writer,
      samples,
      medianMs: median(values),
      p95Ms: p95(values),
    });
    progress(`watch ${engine} ${pollMs ?? "notify"}: other process median ${median(other).toFixed(1)} ms`);
    return [row("other process", other), row("same store", same)];
  } finally {
    await store.close();
  }
}

/** Times a global watcher reaching the end of the log, and readAll paging it, alternately. */
async function catchUpFigures(
  engine: WatchCatchUpResult["engine"],
  url: string,
  quick: boolean,
): Promise<WatchCatchUpResult> {
  const store = await openEventStore(url);
  try {
    const sessions = quick ? 4 : 20;
    progress(`watch ${engine}: building ${sessions} sessions of 5,000 messages`);
    for (let s = 0; s < sessions; s++) await buildSession(store, `watch-${s}`, { messages: 5_000, compact: true });
    const readAll = () => readWholeLog(store, PAGE);
    const watch = (events: number) =>
      new Promise<void>((resolve, reject) => {
        let seen = 0;
        const subscription = watchEvents(store, { all: true }).subscribe({
          next: () => {
            if (++seen < events) return;
            subscription.unsubscribe();
            resolve();
          },
          error: reject,
        });
      });
    const reps = 3;
    const watchMs: number[] = [];
    const readAllMs: number[] = [];
    let events = 0;
    for (let rep = -1; rep < reps; rep++) {
      const read = await timed(readAll);
      events = read.value;
      const watched = await timed(() => watch(events));
      progress(`watch ${engine} catch-up: watchEvents ${watched.ms.toFixed(0)} ms, readAll ${read.ms.toFixed(0)} ms`);
      if (rep < 0) continue;
      readAllMs.push(read.ms);
      watchMs.push(watched.ms);
    }
    return { engine, events, reps, watchMs: median(watchMs), readAllMs: median(readAllMs) };
  } finally {
    await store.close();
  }
}

/** Runs the wake-up latencies (NOTIFY, or polls of 100 and 20 ms) and the catch-up on one engine. */
export async function runWatchBench(
  engine: "postgres" | "sqlite",
  databaseFor: (label: string) => Promise<string>,
  quick: boolean,
): Promise<WatchResult> {
  const wake: WakeResult[] = [];
  const polls = engine === "postgres" ? [undefined] : [100, 20];
  for (const pollMs of polls) {
    wake.push(...(await wakeFigures(engine, await databaseFor(`wake-${pollMs ?? "notify"}`), pollMs, quick)));
  }
  return { wake, catchUp: await catchUpFigures(engine, await databaseFor("watch-log"), quick) };
}

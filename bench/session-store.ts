/**
 * The Claude Agent SDK SessionStore (`@palimpsest/claude-agent-sdk`) against the SDK's reference shape, a
 * bare table of one row per entry (raw-entry-table.ts), on the same database in the same run, with real
 * Claude Code lines cut into the SDK's batches (claude-entries.ts):
 * - append of a batch: ours alone (what the SDK waits for; the fold is queued behind it), ours with its
 *   background fold done, ours with the key flushed after it (fold with the trailing message settled), the raw
 *   multi-row INSERT; p50 and p99 over every batch of several sessions, ours and raw alternating;
 * - PostgreSQL: 100 keys appending at once (ours with the folder running), against the raw insert;
 * - load of a 5,000-entry key against the raw SELECT … ORDER BY seq;
 * - eager mode: one entry per append, one key, the folder running, against single-row raw inserts.
 */
import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { MirrorFolder, Palimpsest } from "@palimpsest/runtime";
import { MirrorLog, openEventStore } from "@palimpsest/store";
import { type EntryBatch, entryBatches, sourceLines } from "./claude-entries.ts";
import { postgresRawTable, type RawEntryTable, sqliteRawTable } from "./raw-entry-table.ts";
import { median, percentile, progress } from "./stats.ts";

/** p50 and p99 of a list of latencies (ms), with how many there were. */
export interface Latency {
  samples: number;
  p50: number;
  p99: number;
}

/** Append of SDK batches, one after another: ours (three ways) and the raw insert. */
export interface BatchAppendResult {
  sessions: number;
  batchesPerSession: number;
  entriesPerBatch: number;
  mibPerBatch: number;
  raw: Latency;
  append: Latency;
  appendFold: Latency;
  appendFlush: Latency;
  /** Median of append + background fold at each batch index of a session: the fold reads the whole key. */
  foldByBatch: number[];
  /** Folds that failed (reported through onError; the entries stay stored). */
  foldFailures: number;
  /** `store.flush()` right after, with nothing new to fold: it folds again every key the store has touched. */
  idleFlushMs: number;
  keysTouched: number;
}

/** Many keys appending at once (PostgreSQL). */
export interface ConcurrentResult {
  appenders: number;
  batchesEach: number;
  raw: Latency;
  ours: Latency;
  rawWallMs: number;
  oursWallMs: number;
  /** After the last append returned: until every key's entries were folded (flush). */
  drainMs: number;
  foldFailures: number;
}

/** Loading one key's entries. */
export interface LoadResult {
  entries: number;
  oursMs: number;
  rawMs: number;
  /** Writing that key: append + its background fold of each batch in turn (one sample each). */
  foldByBatch: number[];
  foldFailures: number;
}

/** Eager mode: one entry per append. */
export interface EagerResult {
  entries: number;
  oursPerSec: number;
  /** The same appends through a store whose folder never folds: the append path alone. */
  deferredPerSec: number;
  rawPerSec: number;
  drainMs: number;
  foldFailures: number;
}

/** Everything measured on one engine. */
export interface SessionStoreResult {
  engine: "postgres" | "sqlite";
  batches: BatchAppendResult;
  load: LoadResult;
  eager: EagerResult;
  concurrent?: ConcurrentResult;
}

/** Where to run: the store's database and the raw table's (the same server, or a SQLite file of its own). */
export interface SessionStoreTarget {
  engine: "postgres" | "sqlite";
  url: string;
  /** SQLite: the file of the bare table. */
  rawSqlitePath?: string;
}

/** The SessionStore with its folder in reach (openSessionStore's parts), so a bench can wait for one fold. */
interface Ours {
  store: PalimpsestSessionStore;
  folder: MirrorFolder;
  errors: unknown[];
  /** A second store on the same database whose appends queue no fold. */
  deferred: PalimpsestSessionStore;
  /** A third one folding as openSessionStore's does (each fold waits the default foldDelayMs for more appends). */
  delayed: PalimpsestSessionStore;
}

/** A folder that folds nothing: appends through it measure the append path alone. */
class DeferredFolder extends MirrorFolder {
  override touch(): void {}
}

async function openOurs(url: string): Promise<Ours> {
  const { foldSessionSummary } = await import("@anthropic-ai/claude-agent-sdk");
  const eventStore = await openEventStore(url);
  const runtime = new Palimpsest({ store: eventStore, counterFor: createTokenCounter });
  const log = new MirrorLog(eventStore);
  const errors: unknown[] = [];
  const onError = (error: unknown) => errors.push(error);
  // No fold delay: a fold starts as soon as its append is stored, so waiting for it measures its cost.
  const folder = new MirrorFolder(runtime, log, { onError, foldDelayMs: 0 });
  const parts = { runtime, log, foldSummary: foldSessionSummary };
  return {
    store: new PalimpsestSessionStore({ ...parts, folder }),
    folder,
    errors,
    deferred: new PalimpsestSessionStore({ ...parts, folder: new DeferredFolder(runtime, log) }),
    delayed: new PalimpsestSessionStore({ ...parts, folder: new MirrorFolder(runtime, log, { onError }) }),
  };
}

function latency(values: readonly number[]): Latency {
  return { samples: values.length, p50: percentile(values, 0.5), p99: percentile(values, 0.99) };
}

/** Runs one part and counts the folds that failed meanwhile. */
async function counting<T extends { foldFailures: number }>(ours: Ours, part: () => Promise<T>): Promise<T> {
  const before = ours.errors.length;
  const result = await part();
  return { ...result, foldFailures: ours.errors.length - before };
}

const mirrorKey = (key: SessionKey) => ({ project: key.projectKey, session: key.sessionId });
const asEntries = (batch: EntryBatch) => batch.entries as SessionStoreEntry[];
const elapsed = async (fn: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

async function batchAppends(
  ours: Ours,
  raw: RawEntryTable,
  batches: readonly EntryBatch[],
  sessions: number,
): Promise<BatchAppendResult> {
  const rawMs: number[] = [];
  const appendMs: number[] = [];
  const foldMs: number[] = [];
  const flushMs: number[] = [];
  const byBatch: number[][] = batches.map(() => []);
  for (let s = -1; s < sessions; s++) {
    const key = { projectKey: "bench-project", sessionId: `batches-${s + 1}` };
    for (const [b, batch] of batches.entries()) {
      const rawTime = () => elapsed(() => raw.append(key, batch.entries));
      const oursTimes = async () => {
        const start = performance.now();
        await ours.store.append(key, asEntries(batch));
        const appended = performance.now();
        await ours.folder.idle(mirrorKey(key));
        const folded = performance.now();
        await ours.folder.flush(mirrorKey(key));
        return [appended - start, folded - start, performance.now() - start] as const;
      };
      // Alternate which runs first, so neither always meets the other's leftovers (WAL, caches).
      let r: number;
      let o: readonly [number, number, number];
      if ((s + b) % 2 === 0) {
        r = await rawTime();
        o = await oursTimes();
      } else {
        o = await oursTimes();
        r = await rawTime();
      }
      if (s < 0) continue; // warmup session
      rawMs.push(r);
      appendMs.push(o[0]);
      foldMs.push(o[1]);
      flushMs.push(o[2]);
      byBatch[b]?.push(o[1]);
    }
  }
  const entries = batches.reduce((n, b) => n + b.entries.length, 0);
  const bytes = batches.reduce((n, b) => n + b.bytes, 0);
  return {
    sessions,
    batchesPerSession: batches.length,
    entriesPerBatch: entries / batches.length,
    mibPerBatch: bytes / batches.length / 2 ** 20,
    raw: latency(rawMs),
    append: latency(appendMs),
    appendFold: latency(foldMs),
    appendFlush: latency(flushMs),
    foldByBatch: byBatch.map(median),
    foldFailures: 0,
    idleFlushMs: await elapsed(() => ours.store.flush()),
    keysTouched: sessions + 1,
  };
}

async function concurrentAppends(
  ours: Ours,
  raw: RawEntryTable,
  batches: readonly EntryBatch[],
  appenders: number,
): Promise<ConcurrentResult> {
  const run = async (label: string, append: (key: SessionKey, batch: EntryBatch) => Promise<void>) => {
    const times: number[] = [];
    const start = performance.now();
    await Promise.all(
      Array.from({ length: appenders }, async (_, a) => {
        const key = { projectKey: "bench-project", sessionId: `${label}-${a}` };
        for (const batch of batches) times.push(await elapsed(() => append(key, batch)));
      }),
    );
    return { times, wallMs: performance.now() - start };
  };
  const bare = await run("raw-concurrent", (key, batch) => raw.append(key, batch.entries));
  const mine = await run("concurrent", (key, batch) => ours.store.append(key, asEntries(batch)));
  const drainMs = await elapsed(() => ours.store.flush());
  return {
    appenders,
    batchesEach: batches.length,
    raw: latency(bare.times),
    ours: latency(mine.times),
    rawWallMs: bare.wallMs,
    oursWallMs: mine.wallMs,
    drainMs,
    foldFailures: 0,
  };
}

async function loads(
  ours: Ours,
  raw: RawEntryTable,
  batches: readonly EntryBatch[],
  reps: number,
): Promise<LoadResult> {
  const key = { projectKey: "bench-project", sessionId: "load" };
  const foldByBatch: number[] = [];
  for (const batch of batches) {
    foldByBatch.push(
      await elapsed(async () => {
        await ours.store.append(key, asEntries(batch));
        await ours.folder.idle(mirrorKey(key));
      }),
    );
    await raw.append(key, batch.entries);
  }
  await ours.store.flush();
  const entries = batches.reduce((n, b) => n + b.entries.length, 0);
  const oursMs: number[] = [];
  const rawMs: number[] = [];
  for (let rep = -1; rep < reps; rep++) {
    let loaded: unknown[] | null = [];
    const o = await elapsed(async () => {
      loaded = await ours.store.load(key);
    });
    const r = await elapsed(async () => {
      if ((await raw.load(key)).length !== entries) throw new Error("session-store bench: raw load lost entries");
    });
    if (loaded?.length !== entries) throw new Error("session-store bench: load lost entries");
    if (rep < 0) continue;
    oursMs.push(o);
    rawMs.push(r);
  }
  return { entries, oursMs: median(oursMs), rawMs: median(rawMs), foldByBatch, foldFailures: 0 };
}

async function eager(
  ours: Ours,
  raw: RawEntryTable,
  batches: readonly EntryBatch[],
  count: number,
): Promise<EagerResult> {
  const entries = batches.flatMap((b) => b.entries).slice(0, count);
  const key = { projectKey: "bench-project", sessionId: "eager" };
  const rawMs = await elapsed(async () => {
    for (const entry of entries) await raw.append(key, [entry]);
  });
  const oursMs = await elapsed(async () => {
    for (const entry of entries) await ours.delayed.append(key, [entry as SessionStoreEntry]);
  });
  const drainMs = await elapsed(() => ours.delayed.flush());
  const deferredKey = { projectKey: "bench-project", sessionId: "eager-deferred" };
  const deferredMs = await elapsed(async () => {
    for (const entry of entries) await ours.deferred.append(deferredKey, [entry as SessionStoreEntry]);
  });
  return {
    entries: entries.length,
    oursPerSec: (entries.length / oursMs) * 1000,
    deferredPerSec: (entries.length / deferredMs) * 1000,
    rawPerSec: (entries.length / rawMs) * 1000,
    drainMs,
    foldFailures: 0,
  };
}

/** Runs every part on one engine (the concurrent one on PostgreSQL only). */
export async function runSessionStoreBench(target: SessionStoreTarget, quick: boolean): Promise<SessionStoreResult> {
  const lines = sourceLines();
  const all = entryBatches(lines, 5_000);
  const perSession = all.slice(0, quick ? 2 : 4);
  const ours = await openOurs(target.url);
  const raw =
    target.engine === "postgres" ? await postgresRawTable(target.url) : sqliteRawTable(target.rawSqlitePath ?? "");
  try {
    const batches = await counting(ours, () => batchAppends(ours, raw, perSession, quick ? 3 : 10));
    progress(
      `session-store ${target.engine} batches: raw p50 ${batches.raw.p50.toFixed(1)} ms, append ${batches.append.p50.toFixed(1)}, +fold ${batches.appendFold.p50.toFixed(1)}, +flush ${batches.appendFlush.p50.toFixed(1)}`,
    );
    const concurrent =
      target.engine === "postgres"
        ? await counting(ours, () => concurrentAppends(ours, raw, all.slice(0, quick ? 1 : 3), quick ? 20 : 100))
        : undefined;
    if (concurrent !== undefined) {
      progress(
        `session-store concurrent: raw p99 ${concurrent.raw.p99.toFixed(0)} ms, ours p99 ${concurrent.ours.p99.toFixed(0)} ms, drain ${concurrent.drainMs.toFixed(0)} ms`,
      );
    }
    const load = await counting(ours, () => loads(ours, raw, all, quick ? 3 : 5));
    progress(
      `session-store ${target.engine} load ${load.entries}: ours ${load.oursMs.toFixed(1)} ms, raw ${load.rawMs.toFixed(1)} ms`,
    );
    const eagerResult = await counting(ours, () => eager(ours, raw, all, quick ? 300 : 1_000));
    progress(
      `session-store ${target.engine} eager: ours ${eagerResult.oursPerSec.toFixed(0)}/s, raw ${eagerResult.rawPerSec.toFixed(0)}/s, drain ${eagerResult.drainMs.toFixed(0)} ms`,
    );
    for (const error of new Set(ours.errors.map(String)))
      progress(`session-store ${target.engine}: a fold failed: ${error}`);
    return {
      engine: target.engine,
      batches,
      load,
      eager: eagerResult,
      ...(concurrent === undefined ? {} : { concurrent }),
    };
  } finally {
    await raw.close();
    await ours.store.close();
  }
}

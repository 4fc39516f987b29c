/**
 * Audit read models: the projector catching up from empty against paging the same log with readAll
 * alone, an incremental catch-up after one turn, rebuild --check against catch-up, the audit queries
 * against a full replay of the session, and appends with and without a projector in another process.
 */
import type { DomainEvent } from "@palimpsest/core";
import { loadSession } from "@palimpsest/runtime";
import { AUDIT_ROW_TABLES, AuditReadModels, type OpenedEventStore, openEventStore } from "@palimpsest/store";
import { databaseOf } from "../test/support/store-database.ts";
import { forkBenchChild } from "./bench-child.ts";
import { median, progress, timed } from "./stats.ts";
import { benchMessage, buildSession, messageEvents, messageText, STARTED } from "./workload.ts";

/** Catch-up, incremental and rebuild figures for one log on one engine. */
export interface AuditCatchUpResult {
  engine: "postgres" | "sqlite";
  events: number;
  /** Rows the models hold after a catch-up: compactions and superseded messages. */
  compactions: number;
  supersessions: number;
  reps: number;
  catchUpMs: number;
  readAllMs: number;
  rebuildCheckMs: number;
  /** One turn (4 messages and its turn.completed) appended, then caught up: medians. */
  turnAppendMs: number;
  turnCatchUpMs: number;
}

/** One audit question: its latency with the models current, with the freshness check, and a replay. */
export interface AuditQueryResult {
  engine: "postgres" | "sqlite";
  query: string;
  queryMs: number;
  /** The same question with catchUpOnRead (the default): a no-op catch-up first. */
  freshMs: number;
  /** loadSession full replay of the long session: what answering it from the log would take. */
  replayMs: number;
}

/**
 * Appends per second with nothing else running, with another process paging the log with readAll (the
 * control: what any second reader costs on this machine), and with the projector catching up there.
 */
export interface AuditAppendResult {
  engine: "postgres" | "sqlite";
  eventsPerRep: number;
  reps: number;
  alonePerSec: number;
  withReaderPerSec: number;
  withProjectorPerSec: number;
}

/** Everything the audit bench measured on one engine. */
export interface AuditResult {
  catchUp: AuditCatchUpResult;
  queries: AuditQueryResult[];
  append: AuditAppendResult;
}

/** Every audit table, the checkpoint's included. */
const AUDIT_TABLES = [...AUDIT_ROW_TABLES, "audit_checkpoints"] as const;

/** The projector's page size, used for the readAll baseline too. */
const PAGE = 1000;
const LONG = "audit-long";
const CHAIN = 10;

/** Writes the log: one long session, `others` sessions of 5,000 messages, and a hand-off chain of 10. */
async function buildAuditLog(store: OpenedEventStore, long: number, others: number): Promise<void> {
  await buildSession(store, LONG, { messages: long, compact: true, batch: 500 });
  for (let s = 0; s < others; s++) await buildSession(store, `audit-${s}`, { messages: 5_000, compact: true });
  for (let k = 0; k < CHAIN; k++) {
    const parent = k === 0 ? {} : { parent: { sessionId: `chain-${k - 1}`, relation: "handoff" as const } };
    const start: DomainEvent = {
      type: "session.started",
      data: { model: "gpt-4o", encoding: "o200k_base", ...parent },
    };
    const events = [start, ...messageEvents(0, 40)];
    if (k < CHAIN - 1) events.push({ type: "session.handed-off", data: { toSessionId: `chain-${k + 1}` } });
    await store.append(`chain-${k}`, events, { expectedVersion: "no-stream" });
  }
}

/** One turn: messages `from` to `from + 3` with its id, then its turn.completed. */
function turnEvents(from: number, turnId: string): DomainEvent[] {
  const messages: DomainEvent[] = [];
  for (let i = from; i < from + 4; i++) {
    messages.push({
      type: "message.appended",
      data: { message: benchMessage(i), tokens: Math.ceil(messageText(i).length / 4), turnId },
    });
  }
  return [...messages, { type: "turn.completed", data: { turnId, usage: { promptTokens: 1000 } } }];
}

/** Empties every audit table and the checkpoint, so the next catch-up starts from the first event. */
async function resetAudit(store: OpenedEventStore): Promise<void> {
  for (const table of AUDIT_TABLES) await databaseOf(store).deleteFrom(table).execute();
}

/** Pages the whole log with readAll alone: the baseline of a catch-up (and of a global watcher). */
export async function readWholeLog(store: OpenedEventStore, pageSize = PAGE): Promise<number> {
  let after = "";
  let events = 0;
  for (;;) {
    const page = await store.readAll({ after, limit: pageSize });
    if (page.events.length === 0) return events;
    events += page.events.length;
    after = page.checkpoint;
  }
}

async function countRows(store: OpenedEventStore, table: "audit_compactions" | "audit_supersessions") {
  const row = await databaseOf(store)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function catchUpFigures(
  engine: AuditCatchUpResult["engine"],
  store: OpenedEventStore,
  quick: boolean,
): Promise<AuditCatchUpResult> {
  const audit = new AuditReadModels(store);
  const reps = 3;
  const catchUp: number[] = [];
  const readAll: number[] = [];
  const rebuild: number[] = [];
  let events = 0;
  for (let rep = -1; rep < reps; rep++) {
    const read = await timed(() => readWholeLog(store));
    await resetAudit(store);
    const caught = await timed(() => audit.catchUp());
    const check = await timed(() => audit.rebuild({ checkOnly: true }));
    if (!check.value.equal || caught.value.events !== read.value) {
      throw new Error(`audit bench: rebuild check failed or catch-up saw ${caught.value.events}/${read.value} events`);
    }
    progress(`audit ${engine}: catch-up ${caught.ms.toFixed(0)} ms, readAll ${read.ms.toFixed(0)} ms`);
    if (rep < 0) continue; // warmup
    events = read.value;
    readAll.push(read.ms);
    catchUp.push(caught.ms);
    rebuild.push(check.ms);
  }
  const turnAppend: number[] = [];
  const turnCatchUp: number[] = [];
  let version = (await store.getSession(LONG))?.version ?? 0;
  for (let rep = -1; rep < (quick ? 10 : 30); rep++) {
    const turn = turnEvents(version, `t-${rep}`);
    const appended = await timed(() => store.append(LONG, turn, { expectedVersion: version }));
    version = appended.value.nextExpectedVersion;
    const caught = await timed(() => audit.catchUp());
    if (caught.value.events !== turn.length) throw new Error(`audit bench: caught up ${caught.value.events} events`);
    if (rep < 0) continue;
    turnAppend.push(appended.ms);
    turnCatchUp.push(caught.ms);
  }
  return {
    engine,
    events,
    compactions: await countRows(store, "audit_compactions"),
    supersessions: await countRows(store, "audit_supersessions"),
    reps,
    catchUpMs: median(catchUp),
    readAllMs: median(readAll),
    rebuildCheckMs: median(rebuild),
    turnAppendMs: median(turnAppend),
    turnCatchUpMs: median(turnCatchUp),
  };
}

async function queryFigures(
  engine: AuditQueryResult["engine"],
  store: OpenedEventStore,
  quick: boolean,
): Promise<AuditQueryResult[]> {
  const current = new AuditReadModels(store, { catchUpOnRead: false });
  const fresh = new AuditReadModels(store);
  await fresh.catchUp();
  const half = Math.floor(((await store.getSession(LONG))?.version ?? 0) / 2);
  const queries: [string, (audit: AuditReadModels) => Promise<unknown>][] = [
    ["compactionTotals by mode", (a) => a.compactionTotals({}, ["mode"])],
    ["message trail (superseded message)", (a) => a.message("m-100", LONG)],
    [`lineage (middle of a ${CHAIN}-session chain)`, (a) => a.lineage(`chain-${CHAIN / 2}`)],
    [`viewAsOf seq ${half.toLocaleString("en-US")} of the long session`, (a) => a.viewAsOf(LONG, { seq: half })],
  ];
  const reps = quick ? 5 : 9;
  const samples = queries.map(() => ({ query: [] as number[], fresh: [] as number[] }));
  const replay: number[] = [];
  for (let rep = -1; rep < reps; rep++) {
    for (const [i, [, ask]] of queries.entries()) {
      const q = await timed(() => ask(current));
      const f = await timed(() => ask(fresh));
      if (rep >= 0) {
        samples[i]?.query.push(q.ms);
        samples[i]?.fresh.push(f.ms);
      }
    }
    const r = await timed(() => loadSession(store, LONG, false));
    if (rep >= 0) replay.push(r.ms);
  }
  return queries.map(([query], i) => ({
    engine,
    query,
    queryMs: median(samples[i]?.query ?? []),
    freshMs: median(samples[i]?.fresh ?? []),
    replayMs: median(replay),
  }));
}

/** Appends in transactions of 10 events: alone, beside a readAll reader, and beside the projector (other process). */
async function appendFigures(
  engine: AuditAppendResult["engine"],
  store: OpenedEventStore,
  url: string,
  quick: boolean,
): Promise<AuditAppendResult> {
  const count = quick ? 1_000 : 3_000;
  const reps = quick ? 3 : 5;
  const sessionId = "audit-appender";
  let version = (await store.append(sessionId, [STARTED], { expectedVersion: "no-stream" })).nextExpectedVersion;
  const child = await forkBenchChild(url, sessionId);
  const rate = async () => {
    const events = messageEvents(version, version + count);
    const start = performance.now();
    for (let k = 0; k < count; k += 10) {
      version = (await store.append(sessionId, events.slice(k, k + 10), { expectedVersion: version }))
        .nextExpectedVersion;
    }
    return (count / (performance.now() - start)) * 1000;
  };
  const rates = { off: [] as number[], read: [] as number[], project: [] as number[] };
  try {
    for (let rep = -1; rep < reps; rep++) {
      const perSec: Record<"off" | "read" | "project", number> = { off: 0, read: 0, project: 0 };
      for (const loop of ["off", "read", "project"] as const) {
        await child.request({ type: "loop", loop });
        perSec[loop] = await rate();
        if (rep >= 0) rates[loop].push(perSec[loop]);
      }
      await child.request({ type: "loop", loop: "off" });
      progress(
        `audit ${engine} append: alone ${perSec.off.toFixed(0)}/s, reader ${perSec.read.toFixed(0)}/s, projector ${perSec.project.toFixed(0)}/s`,
      );
    }
  } finally {
    await child.stop();
  }
  return {
    engine,
    eventsPerRep: count,
    reps,
    alonePerSec: median(rates.off),
    withReaderPerSec: median(rates.read),
    withProjectorPerSec: median(rates.project),
  };
}

/** Builds the log (about 20k events quick, 100k full) at `url` and measures it. */
export async function runAuditBench(engine: "postgres" | "sqlite", url: string, quick: boolean): Promise<AuditResult> {
  const store = await openEventStore(url);
  try {
    progress(`audit ${engine}: building the log`);
    await buildAuditLog(store, quick ? 10_000 : 50_000, quick ? 2 : 10);
    const catchUp = await catchUpFigures(engine, store, quick);
    const queries = await queryFigures(engine, store, quick);
    const append = await appendFigures(engine, store, url, quick);
    return { catchUp, queries, append };
  } finally {
    await store.close();
  }
}

/**
 * Scale: one database grown from N0 to 10×N0 events (sessions of 100 small events), and at 1×, 2×, 5×
 * and 10× the costs an agent and an operator see, through the public API: an agent step's append and a
 * resume from the snapshot (on sessions written at the first size and on sessions written just now), a
 * catalogue page, audit questions about one session, and a global watcher catching up on a fixed number
 * of new events; with the bytes each table holds per event. PostgreSQL is vacuumed, analyzed and
 * checkpointed after each load step (RawDatabase.settle).
 */
import { openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels, type OpenedEventStore, openEventStore, partitionLog } from "@palimpsest/store";
import { layoutName } from "./databases.ts";
import { EVENTS_PER_SESSION, loadSessions, openRawDatabase, smallMessage, type TableBytes } from "./scale-load.ts";
import { cursorAt } from "./session-listing.ts";
import { median, percentile, progress, timed } from "./stats.ts";

/** p50 and p99 of one kind of sample. */
export interface Quantiles {
  p50: number;
  p99: number;
  samples: number;
}

/** Everything measured at one size of the log on one engine. */
export interface ScaleRow {
  engine: "postgres" | "sqlite";
  /** PostgreSQL: the hash partitions each log table is divided into (partitionLog), 0 for plain tables. */
  partitions: number;
  events: number;
  sessions: number;
  /** Events per second of the load step that reached this size (store.append, one session per call). */
  loadPerSec: number;
  /** Events per second of the audit projector's catch-up over that step. */
  auditPerSec: number;
  /** PostgreSQL's VACUUM (ANALYZE) and CHECKPOINT after the step (0 on SQLite, which is not settled). */
  settleMs: number;
  /** One agent step (an assistant tool call and its result, one append) on a resumed session. */
  appendExisting: Quantiles;
  appendFresh: Quantiles;
  /** `resume(id)` and `view()`: the snapshot and the events after it. */
  resumeExisting: Quantiles;
  resumeFresh: Quantiles;
  firstPageMs: number;
  middlePageMs: number;
  /** `compactions({ sessionId })` and `message(id, sessionId)` on a session written at the first size. */
  auditCompactionsMs: number;
  auditMessageMs: number;
  /** readAll paging (500) from a checkpoint taken just before WATCHED new events, to the last of them. */
  watcherMs: number;
  tables: TableBytes[];
}

/** Sizes of a scale run. */
export interface ScaleOptions {
  quick: boolean;
  /** The largest size in events (default 200,000 quick, 500,000 otherwise); the first is a tenth of it. */
  events?: number;
  /** PostgreSQL: divide the log into this many hash partitions (partitionLog) before loading it. */
  partitions?: number;
}

/** New events a watcher catches up on per sample (10 sessions). */
export const WATCHED = 10 * EVENTS_PER_SESSION;
const STEPS = 3;
const PAGE = 50;

function quantiles(values: readonly number[]): Quantiles {
  return { p50: percentile(values, 0.5), p99: percentile(values, 0.99), samples: values.length };
}

const sessionId = (prefix: string, s: number) => `${prefix}-${String(s).padStart(7, "0")}`;

/** Resumes a session and builds its view, then appends STEPS agent steps to it: the times of each. */
async function probe(palimpsest: Palimpsest, id: string, tag: string): Promise<{ resume: number; appends: number[] }> {
  const resumed = await timed(async () => {
    const session = await palimpsest.resume(id);
    if (session.view().messages.length === 0) throw new Error(`scale bench: ${id} resumed empty`);
    return session;
  });
  const appends: number[] = [];
  for (let k = 0; k < STEPS; k++) {
    const prefix = `${id}-${tag}s${k}`;
    appends.push((await timed(() => resumed.value.append([smallMessage(1, prefix), smallMessage(2, prefix)]))).ms);
  }
  return { resume: resumed.ms, appends };
}

/** Pages readAll from `after` until `events` events came back (waiting out PostgreSQL's visibility barrier). */
async function readFrom(store: OpenedEventStore, after: string, events: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let seen = 0; seen < events; ) {
    const page = await store.readAll({ after, limit: 500 });
    seen += page.events.length;
    after = page.checkpoint;
    if (page.events.length === 0 && Date.now() > deadline) throw new Error(`scale bench: watcher saw ${seen} events`);
  }
}

/** The log's sizes: a tenth of the largest, and 2, 5 and 10 times that. */
export function scaleSizes(options: ScaleOptions): number[] {
  const largest = options.events ?? (options.quick ? 200_000 : 500_000);
  const first = Math.max(EVENTS_PER_SESSION * 100, Math.round(largest / 10));
  return [1, 2, 5, 10].map((k) => k * first);
}

/** Grows the database at `url` through every size and measures it at each. */
export async function runScaleBench(
  engine: "postgres" | "sqlite",
  url: string,
  options: ScaleOptions,
): Promise<ScaleRow[]> {
  const probes = options.quick ? 20 : 50;
  const reps = options.quick ? 5 : 9;
  const parallel = engine === "postgres" ? 4 : 1;
  if (options.partitions !== undefined) await partitionLog(url, { partitions: options.partitions });
  const store = await openEventStore(url);
  const palimpsest = await openPalimpsest({ url });
  const raw = await openRawDatabase(engine, url);
  const audit = new AuditReadModels(store);
  const rows: ScaleRow[] = [];
  let sessions = 0;
  let extra = 0; // events appended by the probes' steps
  const load = async (prefix: string, count: number) => {
    await loadSessions(store, prefix, sessions, sessions + count, parallel);
    sessions += count;
  };
  try {
    await load("existing", probes);
    for (const [index, size] of scaleSizes(options).entries()) {
      const bulk = Math.max(0, Math.round(size / EVENTS_PER_SESSION) - probes - sessions);
      progress(
        `scale ${layoutName(engine, options.partitions)}: loading ${bulk.toLocaleString("en-US")} sessions toward ${size.toLocaleString("en-US")} events`,
      );
      const loaded = await timed(() => load("bulk", bulk));
      const caught = await timed(() => audit.catchUp());
      const settled = await timed(() => raw.settle());
      await load(`fresh${index}`, probes);
      const existing = { resume: [] as number[], appends: [] as number[] };
      const fresh = { resume: [] as number[], appends: [] as number[] };
      await probe(palimpsest, sessionId("existing", 0), `w${index}`); // warmup
      for (let p = 0; p < probes; p++) {
        for (const [ids, into] of [
          [sessionId("existing", p), existing],
          [sessionId(`fresh${index}`, sessions - probes + p), fresh],
        ] as const) {
          const result = await probe(palimpsest, ids, `x${index}`);
          into.resume.push(result.resume);
          into.appends.push(...result.appends);
        }
      }
      extra += (1 + 2 * probes) * STEPS * 2;
      await audit.catchUp();
      const middle = await cursorAt(store, Math.floor(sessions / 2));
      const samples = {
        first: [] as number[],
        middle: [] as number[],
        compactions: [] as number[],
        message: [] as number[],
        watcher: [] as number[],
      };
      for (let rep = -1; rep < reps; rep++) {
        const target = sessionId("existing", Math.max(0, rep) % probes);
        const first = await timed(() => store.listSessionPage({ limit: PAGE }));
        const mid = await timed(() =>
          store.listSessionPage({ limit: PAGE, ...(middle === undefined ? {} : { after: middle }) }),
        );
        const head = await store.globalHead();
        await load("watched", WATCHED / EVENTS_PER_SESSION);
        const watcher = await timed(() => readFrom(store, head, WATCHED));
        await audit.catchUp(); // the watched events: the questions below find the models current, as a follower keeps them
        const compactions = await timed(() => audit.compactions({ sessionId: target }));
        const message = await timed(() => audit.message(`${target}-10`, target));
        if (compactions.value.length !== 1 || message.value.length !== 1)
          throw new Error("scale bench: audit rows missing");
        if (rep < 0) continue; // warmup
        samples.first.push(first.ms);
        samples.middle.push(mid.ms);
        samples.compactions.push(compactions.ms);
        samples.message.push(message.ms);
        samples.watcher.push(watcher.ms);
      }
      const row: ScaleRow = {
        engine,
        partitions: options.partitions ?? 0,
        events: sessions * EVENTS_PER_SESSION + extra,
        sessions,
        loadPerSec: (bulk * EVENTS_PER_SESSION * 1000) / loaded.ms,
        auditPerSec: (caught.value.events * 1000) / caught.ms,
        settleMs: engine === "postgres" ? settled.ms : 0,
        appendExisting: quantiles(existing.appends),
        appendFresh: quantiles(fresh.appends),
        resumeExisting: quantiles(existing.resume),
        resumeFresh: quantiles(fresh.resume),
        firstPageMs: median(samples.first),
        middlePageMs: median(samples.middle),
        auditCompactionsMs: median(samples.compactions),
        auditMessageMs: median(samples.message),
        watcherMs: median(samples.watcher),
        tables: await raw.tableBytes(),
      };
      progress(
        `scale ${layoutName(engine, options.partitions)} ${row.events.toLocaleString("en-US")} events: append p50 ${row.appendExisting.p50.toFixed(2)} ms, resume p50 ${row.resumeExisting.p50.toFixed(2)} ms, watcher ${row.watcherMs.toFixed(1)} ms`,
      );
      rows.push(row);
    }
  } finally {
    await raw.close();
    await palimpsest.close();
    await store.close();
  }
  return rows;
}

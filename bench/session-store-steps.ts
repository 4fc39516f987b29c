/**
 * The Claude Agent SDK SessionStore as an agent writes it: one append per model step (the step's
 * assistant lines and the tool results that answer them, as the SDK's eager mode hands them over), back
 * to back, the folder running in the background with its defaults, beside the same steps inserted into
 * the SDK's reference table (raw-entry-table.ts) on the same database, alternating which goes first. The
 * p50 and p99 of a step's append at 1× and at 4× the source (the key grows; each pass has fresh ids), and
 * the fold's drain after the last append. What the SDK waits for is the append: a fold must not show in it.
 * And the first append in a fresh process: a child opens the store (openSessionStore) and appends the
 * source's first 21 steps to a new key; its first append against the median of the later ones.
 *
 *   node_modules/.bin/tsx bench/session-store-steps.ts [--quick]   (PostgreSQL when TEST_DATABASE_URL is set)
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore, PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { MirrorFolder, Palimpsest } from "@palimpsest/runtime";
import { MirrorLog, openEventStore } from "@palimpsest/store";
import { createScratchDatabase } from "../test/support/scratch-postgres.ts";
import { type ClaudeEntry, entryBatches, sourceLines } from "./claude-entries.ts";
import { createSqliteFolder, postgresServerUrl } from "./databases.ts";
import { type FirstAppendRow, firstAppendFigures, firstAppendTable, runFirstAppendChildren } from "./first-append.ts";
import { postgresRawTable, sqliteRawTable } from "./raw-entry-table.ts";
import { markdownTable, ms, num, percentile, progress, ratio } from "./stats.ts";

/** One row: an engine at a key size, ours against the raw insert per step. */
export interface StepWritesRow {
  engine: "postgres" | "sqlite";
  /** Passes over the source lines (1×, 4×). */
  passes: number;
  entries: number;
  steps: number;
  rawP50: number;
  rawP99: number;
  oursP50: number;
  oursP99: number;
  /** After the last append returned: until every entry was folded (flush). */
  drainMs: number;
  failedFolds: number;
}

/** A model step's lines: cut before each assistant line that follows a line of another type. */
export function stepsOf(entries: readonly ClaudeEntry[]): ClaudeEntry[][] {
  const steps: ClaudeEntry[][] = [];
  let current: ClaudeEntry[] = [];
  for (const entry of entries) {
    if (entry.type === "assistant" && current.length > 0 && current.at(-1)?.type !== "assistant") {
      steps.push(current);
      current = [];
    }
    current.push(entry);
  }
  if (current.length > 0) steps.push(current);
  return steps;
}

/** Writes `passes` passes of the source as steps on `engine`, timing each step's append, ours and raw. */
export async function runStepWrites(
  engine: "postgres" | "sqlite",
  url: string,
  rawSqlitePath: string,
  passes: number,
): Promise<StepWritesRow> {
  const lines = sourceLines();
  const entries = entryBatches(lines, lines.length * passes).flatMap((b) => b.entries);
  const steps = stepsOf(entries);
  const { foldSessionSummary } = await import("@anthropic-ai/claude-agent-sdk");
  const eventStore = await openEventStore(url);
  const runtime = new Palimpsest({ store: eventStore, counterFor: createTokenCounter });
  const log = new MirrorLog(eventStore);
  const errors: unknown[] = [];
  const folder = new MirrorFolder(runtime, log, { onError: (error) => errors.push(error) });
  const store = new PalimpsestSessionStore({ runtime, log, folder, foldSummary: foldSessionSummary });
  const raw = engine === "postgres" ? await postgresRawTable(url) : sqliteRawTable(rawSqlitePath);
  const key = { projectKey: "bench-project", sessionId: `steps-${passes}` };
  const rawMs: number[] = [];
  const oursMs: number[] = [];
  let drainMs = 0;
  try {
    // The tokenizer loaded once, as a process that has appended before would have it.
    await createTokenCounter("o200k_base");
    for (const [i, step] of steps.entries()) {
      const timeRaw = async () => {
        const t = performance.now();
        await raw.append(key, step);
        rawMs.push(performance.now() - t);
      };
      const timeOurs = async () => {
        const t = performance.now();
        await store.append(key, step as SessionStoreEntry[]);
        oursMs.push(performance.now() - t);
      };
      if (i % 2 === 0) {
        await timeRaw();
        await timeOurs();
      } else {
        await timeOurs();
        await timeRaw();
      }
    }
    const t = performance.now();
    await store.flush();
    drainMs = performance.now() - t;
  } finally {
    await raw.close();
    await store.close();
  }
  const row: StepWritesRow = {
    engine,
    passes,
    entries: entries.length,
    steps: steps.length,
    rawP50: percentile(rawMs, 0.5),
    rawP99: percentile(rawMs, 0.99),
    oursP50: percentile(oursMs, 0.5),
    oursP99: percentile(oursMs, 0.99),
    drainMs,
    failedFolds: errors.length,
  };
  progress(
    `session-store-steps ${engine} ${passes}×: raw ${row.rawP50.toFixed(2)} / ${row.rawP99.toFixed(2)} ms, ours ${row.oursP50.toFixed(2)} / ${row.oursP99.toFixed(2)} ms`,
  );
  return row;
}

/** Both key sizes (only 1× with `quick`) on `engine`. */
export async function runStepWritesBench(
  engine: "postgres" | "sqlite",
  url: (passes: number) => Promise<string> | string,
  rawSqlitePath: (passes: number) => string,
  quick: boolean,
): Promise<StepWritesRow[]> {
  const rows: StepWritesRow[] = [];
  for (const passes of quick ? [1] : [1, 4]) {
    rows.push(await runStepWrites(engine, await url(passes), rawSqlitePath(passes), passes));
  }
  return rows;
}

/** The rows as a markdown table. */
export function stepWritesTable(rows: readonly StepWritesRow[]): string {
  return markdownTable(
    [
      "engine",
      "key (passes × source)",
      "entries / steps",
      "raw INSERT p50 / p99",
      "SessionStore.append p50 / p99",
      "ours / raw p50 / p99",
      "fold drain after the last step",
      "failed folds",
    ],
    rows.map((r) => [
      r.engine,
      `${r.passes}×`,
      `${num(r.entries)} / ${num(r.steps)}`,
      `${ms(r.rawP50)} / ${ms(r.rawP99)}`,
      `${ms(r.oursP50)} / ${ms(r.oursP99)}`,
      `${ratio(r.oursP50 / r.rawP50)} / ${ratio(r.oursP99 / r.rawP99)}`,
      ms(r.drainMs),
      r.failedFolds,
    ]),
  );
}

/** Fresh processes (this file as a child) appending to a new key through openSessionStore, on the database at `url`. */
export function runStoreFirstAppendBench(engine: "postgres" | "sqlite", url: string, quick: boolean): FirstAppendRow {
  return runFirstAppendChildren(fileURLToPath(import.meta.url), engine, url, quick ? 3 : 7);
}

/** The first-append rows as a markdown table. */
export function storeFirstAppendTable(rows: readonly FirstAppendRow[]): string {
  return firstAppendTable("openSessionStore", rows);
}

/** The child: open the store, append the source's first 21 steps to a new key; prints its figures as JSON. */
async function firstAppendChild(url: string): Promise<void> {
  const steps = stepsOf(sourceLines().map((line) => JSON.parse(line) as ClaudeEntry)).slice(0, 21);
  const started = performance.now();
  const store = await openSessionStore({ url });
  const openMs = performance.now() - started;
  try {
    const key = { projectKey: "bench-first", sessionId: randomUUID() };
    const times: number[] = [];
    for (const step of steps) {
      const start = performance.now();
      await store.append(key, step as SessionStoreEntry[]);
      times.push(performance.now() - start);
    }
    console.log(JSON.stringify(firstAppendFigures(openMs, times)));
  } finally {
    await store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv[2] === "--child") {
  await firstAppendChild(process.argv[3] ?? "");
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const quick = process.argv.includes("--quick");
  const only = process.argv.includes("--sqlite") ? "sqlite" : process.argv.includes("--postgres") ? "postgres" : "";
  const folder = createSqliteFolder();
  const rows: StepWritesRow[] = [];
  const first: FirstAppendRow[] = [];
  try {
    if (only !== "postgres") {
      first.push(runStoreFirstAppendBench("sqlite", folder.path("first.db"), quick));
      rows.push(
        ...(await runStepWritesBench(
          "sqlite",
          (p) => folder.path(`steps-${p}.db`),
          (p) => folder.path(`steps-raw-${p}.db`),
          quick,
        )),
      );
    }
    const server = postgresServerUrl();
    if (server !== undefined && only !== "sqlite") {
      const databases: { drop(): Promise<void> }[] = [];
      try {
        rows.push(
          ...(await runStepWritesBench(
            "postgres",
            async (p) => {
              const database = await createScratchDatabase(server, `bench_steps_${p}`);
              databases.push(database);
              return database.url;
            },
            () => "",
            quick,
          )),
        );
        const database = await createScratchDatabase(server, "bench_steps_first");
        databases.push(database);
        first.push(runStoreFirstAppendBench("postgres", database.url, quick));
      } finally {
        for (const database of databases) await database.drop();
      }
    }
  } finally {
    folder.drop();
  }
  console.log(`${stepWritesTable(rows)}\n\n${storeFirstAppendTable(first)}`);
}

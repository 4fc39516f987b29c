/**
 * Append + its fold as a mirrored key grows: one key of the Claude Agent SDK SessionStore takes real
 * Claude Code lines (claude-entries.ts) in batches of 50 entries up to 20,000, each append waited for
 * with its background fold done, beside the same batches inserted into the SDK's reference table
 * (raw-entry-table.ts) on the same database. At 500, 2,000, 5,000 and 20,000 entries: the medians over
 * the batches just before, and their ratio; and, for comparison, one fold of the key at that size without
 * the memory of the last fold, reading and parsing it whole, as every fold did before folds were
 * incremental (with nothing new to write: its reads and parse alone).
 *
 *   node_modules/.bin/tsx bench/fold-growth.ts [--quick]   (PostgreSQL when TEST_DATABASE_URL is set)
 */
import { pathToFileURL } from "node:url";
import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { foldEvents, initialState, parseTranscript } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { MirrorFolder, Palimpsest } from "@palimpsest/runtime";
import { MirrorLog, openEventStore } from "@palimpsest/store";
import { createScratchDatabase } from "../test/support/scratch-postgres.ts";
import { entryBatches, sourceLines } from "./claude-entries.ts";
import { createSqliteFolder, postgresServerUrl } from "./databases.ts";
import { postgresRawTable, sqliteRawTable } from "./raw-entry-table.ts";
import { markdownTable, median, ms, num, progress, ratio } from "./stats.ts";

/** Entries per append: about one turn of an agent with tool calls. */
const BATCH = 50;
/** The key sizes the table reports, and how many batches before each it takes the medians of. */
const CHECKPOINTS = [500, 2_000, 5_000, 20_000];
const WINDOW = 10;

/** One row: a key size, and the medians of the batches that brought the key to it. */
export interface FoldGrowthRow {
  engine: "postgres" | "sqlite";
  entries: number;
  batches: number;
  rawMs: number;
  appendFoldMs: number;
  ratio: number;
  /** One fold of the key without the memory of the last (reading and parsing it whole): what every fold cost before. */
  wholeFoldMs: number;
  failedFolds: number;
}

/**
 * What every fold did before it was incremental, whatever it had to write: read the key's entries and
 * parse them all, then read and fold the main session's whole log. Its time, in ms.
 */
async function readWhole(runtime: Palimpsest, log: MirrorLog, session: string): Promise<number> {
  const start = performance.now();
  const key = { project: "bench-project", session };
  const rows = await log.entryRows(key, 0);
  parseTranscript(rows.map((r) => r.text).join("\n"), { format: "claude-code", fileName: `${session}.jsonl` });
  const [id = ""] = await log.sessionsIn(key, 0); // its main thread
  foldEvents(initialState(id), await runtime.store.readStream(id));
  return performance.now() - start;
}

/** Grows one key on `engine` to the last checkpoint (the first one only with `quick`), timing each batch. */
export async function runFoldGrowthBench(
  engine: "postgres" | "sqlite",
  url: string,
  rawSqlitePath: string,
  quick: boolean,
): Promise<FoldGrowthRow[]> {
  const checkpoints = quick ? CHECKPOINTS.slice(0, 2) : CHECKPOINTS;
  const entries = entryBatches(sourceLines(), checkpoints.at(-1) ?? 0).flatMap((b) => b.entries);
  const { foldSessionSummary } = await import("@anthropic-ai/claude-agent-sdk");
  const eventStore = await openEventStore(url);
  const runtime = new Palimpsest({ store: eventStore, counterFor: createTokenCounter });
  const log = new MirrorLog(eventStore);
  const errors: unknown[] = [];
  // No fold delay: a fold starts as soon as its append is stored, so waiting for it measures its cost.
  const folder = new MirrorFolder(runtime, log, { onError: (error) => errors.push(error), foldDelayMs: 0 });
  const store = new PalimpsestSessionStore({ runtime, log, folder, foldSummary: foldSessionSummary });
  const raw = engine === "postgres" ? await postgresRawTable(url) : sqliteRawTable(rawSqlitePath);
  const key = { projectKey: "bench-project", sessionId: "fold-growth" };
  const rawMs: number[] = [];
  const oursMs: number[] = [];
  const wholeMs = new Map<number, number>();
  try {
    for (let start = 0; start < entries.length; start += BATCH) {
      const batch = entries.slice(start, start + BATCH);
      const timeRaw = async () => {
        const t = performance.now();
        await raw.append(key, batch);
        rawMs.push(performance.now() - t);
      };
      const timeOurs = async () => {
        const t = performance.now();
        await store.append(key, batch as SessionStoreEntry[]);
        await folder.idle({ project: key.projectKey, session: key.sessionId });
        oursMs.push(performance.now() - t);
      };
      // Alternate which runs first, so neither always meets the other's leftovers (WAL, caches).
      if ((start / BATCH) % 2 === 0) {
        await timeRaw();
        await timeOurs();
      } else {
        await timeOurs();
        await timeRaw();
      }
      const size = start + batch.length;
      if (checkpoints.includes(size)) wholeMs.set(size, await readWhole(runtime, log, key.sessionId));
    }
    await store.flush();
  } finally {
    await raw.close();
    await store.close();
  }
  return checkpoints.map((size) => {
    const end = size / BATCH;
    const window = (values: readonly number[]) => median(values.slice(Math.max(0, end - WINDOW), end));
    const r = window(rawMs);
    const o = window(oursMs);
    progress(`fold-growth ${engine} ${size}: raw ${r.toFixed(2)} ms, append + fold ${o.toFixed(2)} ms`);
    return {
      engine,
      entries: size,
      batches: Math.min(WINDOW, end),
      rawMs: r,
      appendFoldMs: o,
      ratio: o / r,
      wholeFoldMs: wholeMs.get(size) ?? Number.NaN,
      failedFolds: errors.length,
    };
  });
}

/** The rows as a markdown table. */
export function foldGrowthTable(rows: readonly FoldGrowthRow[]): string {
  return markdownTable(
    [
      "engine",
      "key size (entries)",
      "batches (median of)",
      "raw INSERT",
      "append + its fold",
      "ours / raw",
      "reading the whole key (each fold before)",
      "failed folds",
    ],
    rows.map((r) => [
      r.engine,
      num(r.entries),
      `${r.batches} × ${BATCH}`,
      ms(r.rawMs),
      ms(r.appendFoldMs),
      ratio(r.ratio),
      ms(r.wholeFoldMs),
      r.failedFolds,
    ]),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const quick = process.argv.includes("--quick");
  const folder = createSqliteFolder();
  const rows: FoldGrowthRow[] = [];
  try {
    rows.push(...(await runFoldGrowthBench("sqlite", folder.path("fold.db"), folder.path("fold-raw.db"), quick)));
    const server = postgresServerUrl();
    if (server !== undefined) {
      const database = await createScratchDatabase(server, "bench_fold_growth");
      try {
        rows.push(...(await runFoldGrowthBench("postgres", database.url, "", quick)));
      } finally {
        await database.drop();
      }
    }
  } finally {
    folder.drop();
  }
  console.log(foldGrowthTable(rows));
}

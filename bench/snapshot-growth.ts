/**
 * A session that grows without compaction, pass after pass (issue #32): the real Claude Code session of
 * agent-steps.ts written six times over into one session through `session.append(step, { turnId,
 * completeTurn: true })`, beside the plain table (raw-entry-table.ts, one INSERT per step), alternating which
 * goes first. Per pass: our p50 and slowest step against the plain table's slowest, and the view's size at
 * the pass's end. With compaction off the state grows with the session, and so does a snapshot of it: its
 * encoding and write must not show as a step that grows with the session.
 *
 *   node_modules/.bin/tsx bench/snapshot-growth.ts [--quick]   (PostgreSQL when TEST_DATABASE_URL is set)
 */
import { pathToFileURL } from "node:url";
import { openPalimpsest } from "@palimpsest/runtime";
import { createScratchDatabase } from "../test/support/scratch-postgres.ts";
import { freshStep, sourceSteps } from "./agent-steps.ts";
import type { ClaudeEntry } from "./claude-entries.ts";
import { createSqliteFolder, postgresServerUrl } from "./databases.ts";
import { postgresRawTable, type RawEntryTable, sqliteRawTable } from "./raw-entry-table.ts";
import { markdownTable, ms, num, percentile, progress, ratio } from "./stats.ts";

/** One pass on one engine: the steps' figures, in ms, and the view's tokens at its end. */
export interface SnapshotGrowthRow {
  engine: "postgres" | "sqlite";
  pass: number;
  viewTokens: number;
  plainMax: number;
  oursP50: number;
  oursMax: number;
}

/** Writes the source `passes` times into one session and into the plain table, on the database at `url`. */
export async function runSnapshotGrowthBench(
  engine: "postgres" | "sqlite",
  url: string,
  raw: RawEntryTable,
  passes: number,
): Promise<SnapshotGrowthRow[]> {
  const steps = sourceSteps();
  if (steps.length === 0) return [];
  const runtime = await openPalimpsest({ url });
  const rows: SnapshotGrowthRow[] = [];
  try {
    const session = await runtime.startSession({ model: "claude-sonnet-4" });
    const key = { projectKey: "bench", sessionId: "snapshot-growth" };
    let n = 0;
    for (let pass = 0; pass < passes; pass++) {
      const plain: number[] = [];
      const ours: number[] = [];
      for (const source of steps) {
        const step = freshStep(source, pass);
        const timePlain = async () => {
          const start = performance.now();
          await raw.append(
            key,
            step.map((m) => ({ ...m, uuid: m.id }) as unknown as ClaudeEntry),
          );
          plain.push(performance.now() - start);
        };
        const timeOurs = async () => {
          const start = performance.now();
          await session.append(step, { turnId: `turn-${n}`, completeTurn: true });
          ours.push(performance.now() - start);
        };
        if (n % 2 === 0) {
          await timePlain();
          await timeOurs();
        } else {
          await timeOurs();
          await timePlain();
        }
        n += 1;
      }
      const row = {
        engine,
        pass: pass + 1,
        viewTokens: session.state.liveTokens,
        plainMax: Math.max(...plain),
        oursP50: percentile(ours, 0.5),
        oursMax: Math.max(...ours),
      };
      rows.push(row);
      progress(`snapshot growth ${engine} pass ${row.pass}: slowest ${ms(row.oursMax)} (plain ${ms(row.plainMax)})`);
    }
    await runtime.settled();
  } finally {
    await runtime.close();
  }
  return rows;
}

/** The rows as a markdown table. */
export function snapshotGrowthTable(rows: readonly SnapshotGrowthRow[]): string {
  return markdownTable(
    [
      "engine",
      "pass",
      "view at its end",
      "plain table slowest step",
      "ours p50",
      "ours slowest step",
      "slowest vs plain",
    ],
    rows.map((r) => [
      r.engine,
      r.pass,
      `${num(r.viewTokens)} tokens`,
      ms(r.plainMax),
      ms(r.oursP50),
      ms(r.oursMax),
      ratio(r.oursMax / r.plainMax),
    ]),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const passes = process.argv.includes("--quick") ? 3 : 6;
  const folder = createSqliteFolder();
  const server = postgresServerUrl();
  const rows: SnapshotGrowthRow[] = [];
  try {
    const sqliteRaw = sqliteRawTable(folder.path("raw.db"));
    try {
      rows.push(...(await runSnapshotGrowthBench("sqlite", folder.path("growth.db"), sqliteRaw, passes)));
    } finally {
      await sqliteRaw.close();
    }
    if (server !== undefined) {
      const database = await createScratchDatabase(server, "bench_snapshot_growth");
      const raw = await postgresRawTable(database.url);
      try {
        rows.push(...(await runSnapshotGrowthBench("postgres", database.url, raw, passes)));
      } finally {
        await raw.close();
        await database.drop();
      }
    }
  } finally {
    folder.drop();
  }
  console.log(rows.length === 0 ? "No shared transcripts: nothing measured." : snapshotGrowthTable(rows));
}

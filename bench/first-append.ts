/**
 * The first append in a fresh process against the later ones: a bench's own file run as a child (`--child
 * <url>`), which opens what users open, appends about twenty steps and prints its figures as one JSON line;
 * the parent takes the medians over the runs. Used by agent-steps.ts (Session) and session-store-steps.ts
 * (the Claude Agent SDK SessionStore).
 */
import { spawnSync } from "node:child_process";
import { markdownTable, median, ms, num, progress, ratio } from "./stats.ts";

/** Fresh processes on one engine: the opening, the first append and the later ones' median, in ms (medians over the runs). */
export interface FirstAppendRow {
  engine: "postgres" | "sqlite";
  runs: number;
  openMs: number;
  firstMs: number;
  laterMs: number;
}

/** What a child prints: its opening, its first append and the median of its later ones, in ms. */
export interface FirstAppendFigures {
  openMs: number;
  firstMs: number;
  laterMs: number;
}

/** A child's figures from the times of its appends, in order (the first, then the later ones' median). */
export function firstAppendFigures(openMs: number, times: readonly number[]): FirstAppendFigures {
  return { openMs, firstMs: times[0] ?? Number.NaN, laterMs: median(times.slice(1)) };
}

/** Runs `runs` fresh processes of `file` as a child (`--child <url>`) on the database at `url`. */
export function runFirstAppendChildren(
  file: string,
  engine: "postgres" | "sqlite",
  url: string,
  runs: number,
): FirstAppendRow {
  const figures: FirstAppendFigures[] = [];
  for (let run = 0; run < runs; run++) {
    const child = spawnSync(process.execPath, ["--import", "tsx", file, "--child", url], { encoding: "utf8" });
    if (child.status !== 0) throw new Error(`the first-append child failed: ${child.stderr}`);
    figures.push(JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}"));
  }
  const row = {
    engine,
    runs,
    openMs: median(figures.map((f) => f.openMs)),
    firstMs: median(figures.map((f) => f.firstMs)),
    laterMs: median(figures.map((f) => f.laterMs)),
  };
  progress(`first append ${engine}: ${num(row.firstMs, 1)} ms, later ${num(row.laterMs, 2)} ms`);
  return row;
}

/** The rows as a markdown table; `opened` names what the child opens. */
export function firstAppendTable(opened: string, rows: readonly FirstAppendRow[]): string {
  return markdownTable(
    ["engine", "processes", opened, "first append", "later appends (median)", "first / later"],
    rows.map((f) => [f.engine, f.runs, ms(f.openMs), ms(f.firstMs), ms(f.laterMs), ratio(f.firstMs / f.laterMs)]),
  );
}

/**
 * Cold start of one CLI command, process start to answer: `palimpsest sessions --json` through tsx,
 * against bare `node -e ""`, spawned alternately in the same run.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openEventStore } from "@palimpsest/store";
import { median, progress } from "./stats.ts";
import { buildSession } from "./workload.ts";

/** Median wall times of the CLI command and of a bare Node start on one engine. */
export interface ColdStartResult {
  engine: "postgres" | "sqlite";
  runs: number;
  sessions: number;
  cliMs: number;
  nodeMs: number;
  /** cli / node: how many bare Node starts one command costs. */
  ratio: number;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SESSIONS = 3;

function spawnMs(args: readonly string[]): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  return ms;
}

/** Fills the database at `url` with a few small sessions, then times `runs` spawns of each command. */
export async function runColdStartBench(
  engine: "postgres" | "sqlite",
  url: string,
  quick: boolean,
): Promise<ColdStartResult> {
  const store = await openEventStore(url);
  try {
    for (let s = 0; s < SESSIONS; s++) await buildSession(store, `cold-${s}`, { messages: 40, compact: true });
  } finally {
    await store.close();
  }
  const cli = ["node_modules/tsx/dist/cli.mjs", "packages/cli/src/main.ts", "--db", url, "sessions", "--json"];
  const runs = quick ? 3 : 10;
  const cliMs: number[] = [];
  const nodeMs: number[] = [];
  for (let rep = -1; rep < runs; rep++) {
    const c = spawnMs(cli);
    const n = spawnMs(["-e", ""]);
    if (rep < 0) continue; // warmup: fills the OS file cache and tsx's transform cache
    cliMs.push(c);
    nodeMs.push(n);
  }
  const result = {
    engine,
    runs,
    sessions: SESSIONS,
    cliMs: median(cliMs),
    nodeMs: median(nodeMs),
    ratio: median(cliMs) / median(nodeMs),
  };
  progress(`cold start ${engine}: cli ${result.cliMs.toFixed(0)} ms, node ${result.nodeMs.toFixed(0)} ms`);
  return result;
}

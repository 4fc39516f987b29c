/**
 * Cold start of one CLI command in the checkout, process start to answer: `palimpsest sessions --json` as the
 * README runs it there (`npx palimpsest`, npm finding the workspace's bin) and the bin alone
 * (`node_modules/.bin/palimpsest`, the bundle the root `prepare` script makes), against bare `node -e ""`,
 * spawned alternately in the same run.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openEventStore } from "@palimpsest/store";
import { userEnv } from "../test/support/installed-palimpsest.ts";
import { median, progress } from "./stats.ts";
import { buildSession } from "./workload.ts";

/** Median wall times of the checkout's command (through npx and its bin alone) and of a bare Node start on one engine. */
export interface ColdStartResult {
  engine: "postgres" | "sqlite";
  runs: number;
  sessions: number;
  /** `npx palimpsest sessions --json` in the checkout. */
  npxMs: number;
  /** The same command through the workspace's bin, without npx. */
  binMs: number;
  nodeMs: number;
  /** npx / node and bin / node: how many bare Node starts one command costs. */
  npxRatio: number;
  binRatio: number;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SESSIONS = 3;

function spawnMs(command: string, args: readonly string[]): number {
  const start = performance.now();
  const run = spawnSync(command, args, { cwd: ROOT, env: userEnv(), encoding: "utf8" });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${run.status}: ${run.stderr}`);
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
  const args = ["palimpsest", "--db", url, "sessions", "--json"];
  const runs = quick ? 3 : 10;
  const npxMs: number[] = [];
  const binMs: number[] = [];
  const nodeMs: number[] = [];
  for (let rep = -1; rep < runs; rep++) {
    const x = spawnMs("npx", args);
    const b = spawnMs("node_modules/.bin/palimpsest", args.slice(1));
    const n = spawnMs(process.execPath, ["-e", ""]);
    if (rep < 0) continue; // warmup: fills the OS file cache
    npxMs.push(x);
    binMs.push(b);
    nodeMs.push(n);
  }
  const node = median(nodeMs);
  const result = {
    engine,
    runs,
    sessions: SESSIONS,
    npxMs: median(npxMs),
    binMs: median(binMs),
    nodeMs: node,
    npxRatio: median(npxMs) / node,
    binRatio: median(binMs) / node,
  };
  progress(
    `cold start ${engine}: npx palimpsest ${result.npxMs.toFixed(0)} ms, bin ${result.binMs.toFixed(0)} ms, node ${node.toFixed(0)} ms`,
  );
  return result;
}

/**
 * Cold start of the installed `palimpsest` bin (compiled JavaScript, installed with npm from the packed
 * tarballs, no tsx): `palimpsest sessions --json`, process start to answer, against bare `node -e ""`,
 * spawned alternately in the same run; then the peak RSS of each, measured in separate runs.
 */
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { openEventStore } from "@palimpsest/store";
import { type InstalledProject, userEnv } from "../test/support/installed-palimpsest.ts";
import { median, progress } from "./stats.ts";
import { buildSession } from "./workload.ts";

/** Medians of the installed command and of a bare Node start on one engine. */
export interface InstalledStartResult {
  engine: "postgres" | "sqlite";
  runs: number;
  sessions: number;
  cliMs: number;
  nodeMs: number;
  /** cli / node: how many bare Node starts one command costs. */
  ratio: number;
  /** Peak resident set size (MB) of the command and of bare Node. */
  cliRssMb: number;
  nodeRssMb: number;
}

const SESSIONS = 3;
/** Prints the process's peak RSS (KB) as the last stderr line when it exits: only in the RSS runs. */
const RSS_PROBE = `data:text/javascript,process.on("exit",()=>process.stderr.write("\\nmaxrss "+process.resourceUsage().maxRSS+"\\n"))`;

function spawnOnce(args: readonly string[], cwd: string): { ms: number; stderr: string } {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, env: userEnv(), encoding: "utf8" });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`node ${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  return { ms, stderr: run.stderr };
}

function maxRssMb(args: readonly string[], cwd: string): number {
  const { stderr } = spawnOnce(["--import", RSS_PROBE, ...args], cwd);
  const kb = Number(stderr.match(/maxrss (\d+)\s*$/)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no maxrss line in: ${stderr}`);
  return kb / 1024;
}

/**
 * Fills the engine's database with a few small sessions (SQLite: the embedded default file of a fresh
 * folder, so the command runs with no URL), then times `runs` spawns of each command.
 */
export async function runInstalledStartBench(
  project: InstalledProject,
  engine: "postgres" | "sqlite",
  url: string | undefined,
  quick: boolean,
): Promise<InstalledStartResult> {
  const cwd = join(project.dir, `start-${engine}`);
  await mkdir(cwd, { recursive: true });
  const store = await openEventStore(url ?? join(cwd, ".palimpsest/palimpsest.db"));
  try {
    for (let s = 0; s < SESSIONS; s++) await buildSession(store, `start-${s}`, { messages: 40, compact: true });
  } finally {
    await store.close();
  }
  const bin = realpathSync(join(project.dir, "node_modules/.bin/palimpsest"));
  const cli = [bin, ...(url === undefined ? [] : ["--db", url]), "sessions", "--json"];
  const bare = ["-e", ""];
  const runs = quick ? 3 : 10;
  const cliMs: number[] = [];
  const nodeMs: number[] = [];
  for (let rep = -1; rep < runs; rep++) {
    const c = spawnOnce(cli, cwd).ms;
    const n = spawnOnce(bare, cwd).ms;
    if (rep < 0) continue; // warmup: fills the OS file cache
    cliMs.push(c);
    nodeMs.push(n);
  }
  const cliRss: number[] = [];
  const nodeRss: number[] = [];
  for (let rep = 0; rep < Math.min(runs, 5); rep++) {
    cliRss.push(maxRssMb(cli, cwd));
    nodeRss.push(maxRssMb(bare, cwd));
  }
  const result: InstalledStartResult = {
    engine,
    runs,
    sessions: SESSIONS,
    cliMs: median(cliMs),
    nodeMs: median(nodeMs),
    ratio: median(cliMs) / median(nodeMs),
    cliRssMb: Math.max(...cliRss),
    nodeRssMb: Math.max(...nodeRss),
  };
  progress(
    `installed start ${engine}: cli ${result.cliMs.toFixed(0)} ms / ${result.cliRssMb.toFixed(0)} MB, ` +
      `node ${result.nodeMs.toFixed(0)} ms / ${result.nodeRssMb.toFixed(0)} MB`,
  );
  return result;
}

/**
 * Cold start of the installed `palimpsest` bin (compiled JavaScript, installed with npm from the packed
 * tarballs, no tsx): `palimpsest sessions --json`, process start to answer, against bare `node -e ""`,
 * spawned alternately in the same run; then the peak RSS of each, measured in separate runs. The same
 * command on the unbundled tsc output (`@palimpsest/cli`'s library entry) shows what the bin's bundle saves.
 */
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
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
  /** The same command run from the tsc output instead of the bin's bundle. */
  unbundledMs: number;
  nodeMs: number;
  /** cli / node: how many bare Node starts one command costs. */
  ratio: number;
  /** Peak resident set size (MB) of the command and of bare Node. */
  cliRssMb: number;
  unbundledRssMb: number;
  nodeRssMb: number;
}

const SESSIONS = 3;
/** Prints the process's peak RSS (KB) as the last stderr line when it exits: only in the RSS runs. */
/** Runs the CLI from @palimpsest/cli's tsc output (dist/index.js), as the bin did before it was bundled. */
const UNBUNDLED = `import { runCli } from "@palimpsest/cli";\nprocess.exitCode = await runCli(process.argv.slice(2));\n`;
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
  const unbundledScript = join(project.dir, "unbundled-cli.mjs");
  await writeFile(unbundledScript, UNBUNDLED);
  const args = [...(url === undefined ? [] : ["--db", url]), "sessions", "--json"];
  const cli = [bin, ...args];
  const unbundled = [unbundledScript, ...args];
  const bare = ["-e", ""];
  const runs = quick ? 3 : 10;
  const cliMs: number[] = [];
  const unbundledMs: number[] = [];
  const nodeMs: number[] = [];
  for (let rep = -1; rep < runs; rep++) {
    const c = spawnOnce(cli, cwd).ms;
    const u = spawnOnce(unbundled, cwd).ms;
    const n = spawnOnce(bare, cwd).ms;
    if (rep < 0) continue; // warmup: fills the OS file cache
    cliMs.push(c);
    unbundledMs.push(u);
    nodeMs.push(n);
  }
  const cliRss: number[] = [];
  const unbundledRss: number[] = [];
  const nodeRss: number[] = [];
  for (let rep = 0; rep < Math.min(runs, 5); rep++) {
    cliRss.push(maxRssMb(cli, cwd));
    unbundledRss.push(maxRssMb(unbundled, cwd));
    nodeRss.push(maxRssMb(bare, cwd));
  }
  const result: InstalledStartResult = {
    engine,
    runs,
    sessions: SESSIONS,
    cliMs: median(cliMs),
    unbundledMs: median(unbundledMs),
    nodeMs: median(nodeMs),
    ratio: median(cliMs) / median(nodeMs),
    cliRssMb: Math.max(...cliRss),
    unbundledRssMb: Math.max(...unbundledRss),
    nodeRssMb: Math.max(...nodeRss),
  };
  progress(
    `installed start ${engine}: cli ${result.cliMs.toFixed(0)} ms / ${result.cliRssMb.toFixed(0)} MB, ` +
      `unbundled ${result.unbundledMs.toFixed(0)} ms / ${result.unbundledRssMb.toFixed(0)} MB, ` +
      `node ${result.nodeMs.toFixed(0)} ms / ${result.nodeRssMb.toFixed(0)} MB`,
  );
  return result;
}

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@palimpsest/cli";
import { importedSessionId } from "@palimpsest/runtime/testing";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";

/** The repository root (the CLI runs from here unless a test picks another cwd). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The compiled bin a user installs (built once per run by test/support/build-global-setup.ts). */
export const BIN = join(ROOT, "packages/cli/bin/palimpsest.mjs");

/** What one CLI process did. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of one CLI run: working directory, extra environment (undefined deletes a variable). */
export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** runPalimpsest only: told each piece of stdout as the CLI writes it (to act while it runs). */
  onStdout?: (text: string) => void;
}

/**
 * The environment of a run: the test process's, without PALIMPSEST_DATABASE_URL, PALIMPSEST_TENANT or the
 * keyring's variables, then `options.env`.
 */
function cliEnv(options: CliOptions): Record<string, string> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PALIMPSEST_DATABASE_URL: undefined,
    PALIMPSEST_TENANT: undefined,
    PALIMPSEST_KEYRING: undefined,
    PALIMPSEST_MASTER_KEY: undefined,
  };
  for (const [k, v] of Object.entries(options.env ?? {})) env[k] = v;
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env as Record<string, string>;
}

/**
 * Runs the `palimpsest` CLI in this process (runCli with its own stdout, stderr, environment and working
 * directory), as the bin would run it: the same commands, output and exit codes without a process start.
 * The inherited PALIMPSEST_DATABASE_URL is removed unless `options.env` sets it. Tests about the process
 * itself (signals, two processes at once, the real exit status) use spawnPalimpsest or startPalimpsest.
 */
export async function runPalimpsest(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(args, {
    stdout: (text) => {
      stdout.push(text);
      options.onStdout?.(text);
    },
    stderr: (text) => stderr.push(text),
    env: cliEnv(options),
    cwd: options.cwd ?? ROOT,
  });
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}

/** Runs the CLI like runPalimpsest, in a process of its own (see startPalimpsest). */
export function spawnPalimpsest(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return startPalimpsest(args, options).result;
}

/** A CLI process still running: its process, a wait for a line of its stderr, and its outcome. */
export interface RunningCli {
  readonly child: ChildProcess;
  /** Resolves with the first stderr line matching `pattern` (rejects if the process ends first). */
  stderrLine(pattern: RegExp): Promise<string>;
  readonly result: Promise<CliResult>;
}

/**
 * Starts the real `palimpsest` bin (packages/cli/bin/palimpsest.mjs, the compiled CLI) in a child process, for
 * tests that signal it, read its output while it runs, or race two processes. The one place a CLI process
 * is spawned.
 */
export function startPalimpsest(args: readonly string[], options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: cliEnv(options),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on("data", (b: Buffer) => out.push(b));
  child.stderr?.on("data", (b: Buffer) => err.push(b));
  const result = new Promise<CliResult>((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) =>
      done({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") }),
    );
  });
  const stderrLine = (pattern: RegExp) =>
    new Promise<string>((found, fail) => {
      const check = (): boolean => {
        const line = Buffer.concat(err)
          .toString("utf8")
          .split("\n")
          .slice(0, -1)
          .find((l) => pattern.test(l));
        if (line !== undefined) found(line);
        return line !== undefined;
      };
      if (check()) return;
      const onData = () => {
        if (check()) child.stderr?.off("data", onData);
      };
      child.stderr?.on("data", onData);
      void result.then(() => fail(new Error(`the CLI ended without printing ${pattern}`)));
    });
  return { child, stderrLine, result };
}

/** The `{"error":{…}}` report a `--json` run printed on stderr. */
export interface ErrorReportJson {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Parses the JSON error a failed `--json` command wrote to stderr (throws if stderr is not that JSON). */
export function jsonError(result: CliResult): ErrorReportJson {
  const parsed = JSON.parse(result.stderr) as { error?: ErrorReportJson };
  if (parsed.error === undefined) throw new Error(`no error on stderr: ${result.stderr}`);
  return parsed.error;
}

/** A database the CLI can be pointed at with `--db`, deleted by dispose. */
export interface CliDatabase {
  readonly name: "sqlite" | "postgres";
  readonly url: string;
  /** A fresh temporary folder for fixtures, removed by dispose. */
  readonly dir: string;
  dispose(): Promise<void>;
}

/** A SQLite file (in a nested folder the store must create) inside a fresh temporary folder. */
export async function sqliteCliDatabase(): Promise<CliDatabase> {
  const dir = await mkdtemp(join(tmpdir(), "palimpsest-cli-"));
  return {
    name: "sqlite",
    url: join(dir, "db", "palimpsest.db"),
    dir,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Each engine's name, how to make one of its databases, and why its suite is skipped (undefined when it
 * runs): SQLite always, PostgreSQL when postgresServer has a server.
 */
export function engineDatabases(): [string, () => Promise<CliDatabase>, string | undefined][] {
  const server = postgresServer();
  return [
    ["sqlite", sqliteCliDatabase, undefined],
    [
      "postgres",
      () => ("skip" in server ? Promise.reject(new Error(server.skip)) : postgresCliDatabase(server.url)),
      "skip" in server ? server.skip : undefined,
    ],
  ];
}

/** A PostgreSQL database of its own on the server of `baseUrl` (see postgres-server.ts), dropped by dispose. */
export async function postgresCliDatabase(baseUrl: string): Promise<CliDatabase> {
  const dir = await mkdtemp(join(tmpdir(), "palimpsest-cli-pg-"));
  const database = await createScratchDatabase(baseUrl, "cli");
  return {
    name: "postgres",
    url: database.url,
    dir,
    async dispose() {
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Two file stems whose imported OpenAI session ids share their first `length` characters (and that
 * prefix), for testing ambiguous prefixes. Deterministic: the ids are derived from the stems.
 */
export function collidingStems(tag: string, length = 3): { stems: [string, string]; prefix: string } {
  const seen = new Map<string, string>();
  for (let i = 0; ; i++) {
    const stem = `${tag}-${i}`;
    const prefix = importedSessionId("openai", stem).slice(0, length);
    const other = seen.get(prefix);
    if (other !== undefined) return { stems: [other, stem], prefix };
    seen.set(prefix, stem);
  }
}

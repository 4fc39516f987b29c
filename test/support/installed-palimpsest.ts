import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, "../..");
/** The pnpm the README and .ci/run use: it packs the workspace (rewriting `workspace:*` versions). */
const PNPM = ["-y", "pnpm@12.4.2"];

/** What one process did. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end (no shell), capturing its output; rejects only when it cannot start. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? userEnv(), stdio: "pipe" });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", fail);
    child.on("close", (code) =>
      done({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") }),
    );
  });
}

/** Like run, but a non-zero exit is an error carrying the process's output. */
export async function runOk(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

/**
 * The environment of a user's shell, not of this workspace: no npm/pnpm script variables, no NODE_OPTIONS,
 * no workspace `node_modules/.bin` on PATH, no database URL. Keeps npm_config_nodedir when set; otherwise
 * points node-gyp at the running Node's own headers when they are installed beside it (better-sqlite3 builds
 * from source where its prebuilt binary cannot be downloaded, and node-gyp would try to download headers).
 */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|PNPM_|NODE_OPTIONS$|INIT_CWD$|PALIMPSEST_DATABASE_URL$|VITEST)/.test(key)) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((entry) => !resolve(entry).startsWith(ROOT))
    .join(delimiter);
  const nodedir = process.env.npm_config_nodedir ?? localNodeHeaders();
  if (nodedir !== undefined) env.npm_config_nodedir = nodedir;
  return env;
}

/** The install prefix of the running Node when its headers (include/node) are there and of this version. */
function localNodeHeaders(): string | undefined {
  const prefix = dirname(dirname(process.execPath));
  const header = join(prefix, "include/node/node_version.h");
  if (!existsSync(header)) return undefined;
  const text = readFileSync(header, "utf8");
  const part = (name: string) => text.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`))?.[1];
  return `v${part("MAJOR")}.${part("MINOR")}.${part("PATCH")}` === process.version ? prefix : undefined;
}

/**
 * npm's warnings a user should not see from an install, one per package: `EBADENGINE name@version` (it
 * declares another Node) and `deprecated name@version`, from npm's stderr.
 */
export function installWarnings(stderr: string): string[] {
  const engines = [...stderr.matchAll(/npm warn EBADENGINE\s+package: '([^']+)'/gi)].map((m) => `EBADENGINE ${m[1]}`);
  const deprecated = [...stderr.matchAll(/npm warn deprecated (\S+?):/gi)].map((m) => `deprecated ${m[1]}`);
  return [...engines, ...deprecated];
}

/**
 * The EBADENGINE warning npm prints for the package `name` installed in `dir`'s node_modules, as
 * installWarnings lists it, when the running Node is outside the package's `engines.node`; none when inside (or
 * without one). Knows the one form such packages declare here, `>=X[.Y[.Z]]`, and throws on any other.
 */
export function engineWarning(dir: string, name: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as {
    version: string;
    engines?: { node?: string };
  };
  const range = manifest.engines?.node;
  if (range === undefined) return [];
  const floor = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (floor === null) throw new Error(`${name}: engines.node "${range}" is not of the form >=X.Y.Z`);
  const wanted = floor.slice(1).map((part) => Number(part ?? 0));
  const running = process.versions.node.split(".").map(Number);
  const order = running.map((n, i) => n - (wanted[i] ?? 0)).find((d) => d !== 0) ?? 0;
  return order >= 0 ? [] : [`EBADENGINE ${name}@${manifest.version}`];
}

/**
 * The registry spec of a database driver as this repository tests it (`pg@8.23.1`): the version the store
 * package pins in its devDependencies, one of those its peer range allows.
 */
export function driverSpec(name: "pg" | "better-sqlite3"): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, "packages/store/package.json"), "utf8")) as {
    devDependencies?: Record<string, string>;
  };
  const version = manifest.devDependencies?.[name];
  if (version === undefined) throw new Error(`packages/store/package.json has no devDependency ${name}`);
  return `${name}@${version}`;
}

/** An empty npm project outside the workspace with the packed packages installed by plain npm. */
export interface InstalledProject {
  /** The project folder (in the OS temp folder). */
  readonly dir: string;
  /** The tarballs `pnpm -r pack` wrote, by file name. */
  readonly tarballs: readonly string[];
  /** npm's stderr of the install: its warnings (EBADENGINE, deprecated, …) about our packages and their dependencies. */
  readonly installStderr: string;
  /** Deletes the project and the tarballs. */
  dispose(): Promise<void>;
}

/**
 * Builds the workspace (`tsc -b`), packs every publishable package with pnpm, creates an empty project in
 * a temporary folder and installs all the tarballs there with `npm install`, as a user would (with the
 * tarballs standing in for the registry's copies), together with `beside` (registry specs such as
 * `pg@8.23.1`: the database driver a user picks).
 */
export async function installFromTarballs(beside: readonly string[] = []): Promise<InstalledProject> {
  const packDir = await mkdtemp(join(tmpdir(), "palimpsest-pack-"));
  const dir = await mkdtemp(join(tmpdir(), "palimpsest-install-"));
  const dispose = async () => {
    await rm(packDir, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await runOk(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-b", "tsconfig.build.json"], {
      cwd: ROOT,
    });
    await runOk("npx", [...PNPM, "-r", "pack", "--pack-destination", packDir], { cwd: ROOT });
    const tarballs = (await readdir(packDir)).filter((f) => f.endsWith(".tgz")).sort();
    // allowScripts: npm's review list of install scripts (better-sqlite3 builds where no prebuilt binary fits).
    const manifest = {
      name: "palimpsest-install-check",
      private: true,
      type: "module",
      allowScripts: { "better-sqlite3": true },
    };
    await writeFile(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const install = await runOk(
      "npm",
      ["install", "--no-audit", "--no-fund", ...tarballs.map((t) => join(packDir, t)), ...beside],
      {
        cwd: dir,
      },
    );
    return { dir, tarballs, installStderr: install.stderr, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

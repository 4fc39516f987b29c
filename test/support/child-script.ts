import { spawn } from "node:child_process";
import { mkdirSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "../..");
/** Bundles land under the store package so Node resolves better-sqlite3 (a store dependency) from them. */
const bundleDir = join(root, "packages/store/node_modules/.cache/palimpsest-scripts");

type EsbuildBuildSync = (options: Record<string, unknown>) => unknown;

/** The bundle of each script this process started, built on its first start. */
const bundles = new Map<string, string>();

/**
 * The command that runs `script`: a bundle built once per test process with esbuild (tsx's own dependency,
 * resolved through tsx: no new dependency), so each start is a plain `node` start instead of a tsx one (which
 * compiles the workspace's sources again in every child: seconds each on a loaded machine). Falls back to tsx
 * when esbuild cannot be loaded.
 */
function command(script: string): string[] {
  let bundle = bundles.get(script);
  if (bundle === undefined) {
    let buildSync: EsbuildBuildSync;
    try {
      buildSync = (
        createRequire(createRequire(import.meta.url).resolve("tsx/package.json"))("esbuild") as {
          buildSync: EsbuildBuildSync;
        }
      ).buildSync;
    } catch {
      return [join(root, "node_modules/tsx/dist/cli.mjs"), script];
    }
    mkdirSync(bundleDir, { recursive: true });
    // One file per script, replaced atomically by each process's build (the same sources give the same
    // bundle), so none is left behind however a test process ends.
    bundle = join(bundleDir, `${basename(script, ".ts")}.mjs`);
    const building = join(bundleDir, `${basename(script, ".ts")}-${process.pid}.building.mjs`);
    buildSync({
      entryPoints: [join(root, script)],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: building,
      external: ["better-sqlite3", "pg-native"],
      banner: {
        js: 'import { createRequire as __scriptRequire } from "node:module"; const require = __scriptRequire(import.meta.url);',
      },
      logLevel: "error",
    });
    renameSync(building, bundle);
    bundles.set(script, bundle);
  }
  return [bundle];
}

/** How a child script ended: its exit code, or the signal that killed it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A test script running in its own Node process (bundled, or through tsx), spoken to in JSON lines. */
export interface ChildScript {
  /** Every JSON line the child printed on stdout so far, parsed, in order. */
  readonly messages: unknown[];
  /** Called for each JSON line as it arrives (after it is added to `messages`). */
  onMessage(listener: (message: unknown) => void): void;
  /** What the child wrote on stderr so far. */
  stderr(): string;
  /** Closes the child's stdin (the scripts here take that as "finish what you are doing and exit"). */
  endInput(): void;
  /** Sends the child `signal` (SIGKILL: it dies at once, mid-statement, as a crashed process does). */
  kill(signal: NodeJS.Signals): void;
  /** Settles when the child has exited and its output has been read. */
  readonly exited: Promise<ChildExit>;
}

/**
 * Starts `script` (a path from the repository root) with `args`. A child that dies of an unhandled error
 * shows as a non-zero exit with the error on stderr, so a crash is never mistaken for a failed call.
 */
export function startScript(script: string, args: readonly string[]): ChildScript {
  const child = spawn(process.execPath, [...command(script), ...args], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const messages: unknown[] = [];
  const listeners: ((message: unknown) => void)[] = [];
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = { text: line };
    }
    messages.push(message);
    for (const listener of listeners) listener(message);
  });
  const exited = new Promise<ChildExit>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  return {
    messages,
    onMessage: (listener) => void listeners.push(listener),
    stderr: () => stderr,
    endInput: () => void child.stdin.end(),
    kill: (signal) => void child.kill(signal),
    exited,
  };
}

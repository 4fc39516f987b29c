import { type ChildProcess, fork } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, join } from "node:path";

const root = join(import.meta.dirname, "../..");
/** Bundles land under the store package so Node resolves better-sqlite3 (a store dependency) from them. */
const bundleDir = join(root, "packages/store/node_modules/.cache/palimpsest-faults");

/** How a worker script is started: a pre-built bundle (plain node) or through tsx. */
export interface WorkerScript {
  readonly path: string;
  readonly execArgv: readonly string[];
  /** Deletes the bundle, if one was built. */
  dispose(): Promise<void>;
}

type EsbuildBuild = (options: Record<string, unknown>) => Promise<unknown>;

/**
 * Bundles a worker script once per test file with esbuild (tsx's own dependency, resolved through tsx:
 * no new dependency), so a restart costs a plain `node` start (~0.25 s) instead of a tsx one (~2 s under
 * load). gpt-tokenizer stays out of the bundle (workers count with a cheap counter) unless `tokenizer`
 * says a worker counts with the real one (a surface that opens its own runtime). Falls back to tsx when
 * esbuild cannot be loaded.
 */
export async function bundleWorker(script: string, options: { tokenizer?: boolean } = {}): Promise<WorkerScript> {
  let build: EsbuildBuild;
  try {
    build = (
      createRequire(createRequire(import.meta.url).resolve("tsx/package.json"))("esbuild") as { build: EsbuildBuild }
    ).build;
  } catch {
    return { path: script, execArgv: ["--import", "tsx"], dispose: async () => {} };
  }
  await mkdir(bundleDir, { recursive: true });
  const out = join(bundleDir, `${basename(script, ".ts")}-${process.pid}-${Date.now()}.mjs`);
  await build({
    entryPoints: [script],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: out,
    external: ["better-sqlite3", "pg-native", ...(options.tokenizer === true ? [] : ["gpt-tokenizer"])],
    banner: {
      js: 'import { createRequire as __faultRequire } from "node:module"; const require = __faultRequire(import.meta.url);',
    },
    logLevel: "error",
  });
  return { path: out, execArgv: [], dispose: () => rm(out, { force: true }) };
}

/** A message a worker sends to the parent over IPC: always an object with a `t` (its type). */
export type WorkerMessage = { t: string } & Record<string, unknown>;

/** A worker process driven over IPC: messages in arrival order, send, SIGKILL, and its exit. */
export class Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #queue: WorkerMessage[] = [];
  #closed = false;
  #waiter: (() => void) | undefined;
  #stderr = "";
  /** Waits for text on stderr (wroteOnStderr), each settled when its text arrives or the worker exits. */
  #stderrWaits: { text: string; settle: (seen: boolean) => void }[] = [];

  /** Starts `script` with an IPC channel; stderr is kept for failure messages. */
  constructor(script: WorkerScript) {
    this.child = fork(script.path, [], {
      cwd: root,
      execArgv: [...script.execArgv],
      stdio: ["ignore", "inherit", "pipe", "ipc"],
    });
    this.child.stderr?.on("data", (chunk) => {
      this.#stderr += String(chunk);
      this.#settleStderrWaits(false);
    });
    this.child.on("message", (message) => {
      this.#queue.push(message as WorkerMessage);
      this.#wake();
    });
    this.exited = new Promise((resolve) => {
      // "close", not "exit": by then every message the worker wrote to the channel has arrived.
      this.child.on("close", (code, signal) => {
        this.#closed = true;
        resolve({ code, signal });
        this.#wake();
        this.#settleStderrWaits(true);
      });
    });
  }

  /** What the worker wrote to stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /**
   * Resolves true once the worker has written `text` to stderr (a line written with writeSync just before
   * it stops dead, where no IPC message could leave it), false when it exits without writing it.
   */
  wroteOnStderr(text: string): Promise<boolean> {
    return new Promise((settle) => {
      this.#stderrWaits.push({ text, settle });
      this.#settleStderrWaits(this.#closed);
    });
  }

  /** Sends a message (resolves once it is written to the channel). */
  send(message: object): Promise<void> {
    return new Promise((resolve, reject) => this.child.send(message, (error) => (error ? reject(error) : resolve())));
  }

  /** The next message, or undefined once the worker has exited and every message was taken. */
  async next(): Promise<WorkerMessage | undefined> {
    for (;;) {
      const message = this.#queue.shift();
      if (message !== undefined) return message;
      if (this.#closed) return undefined;
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }

  /** Messages already received and not yet taken (a killed worker's last words). */
  drain(): WorkerMessage[] {
    return this.#queue.splice(0);
  }

  /** SIGKILLs the worker and waits until it is gone. */
  async kill(): Promise<void> {
    this.child.kill("SIGKILL");
    await this.exited;
  }

  #settleStderrWaits(exited: boolean): void {
    this.#stderrWaits = this.#stderrWaits.filter(({ text, settle }) => {
      if (this.#stderr.includes(text)) settle(true);
      else if (exited) settle(false);
      else return true;
      return false;
    });
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }
}

/** A worker's side of the channel: sends one message and resolves once it is written to the pipe. */
export function report(message: WorkerMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.send === undefined) reject(new Error("not started with an IPC channel"));
    else process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * A worker's side of the channel, the other way: the parent's messages in arrival order, each taken once
 * by `next()` (which waits for one). Listens from the moment it is made, so nothing sent early is lost.
 */
export function parentMessages(): { next(): Promise<unknown> } {
  const inbox: unknown[] = [];
  let wake: (() => void) | undefined;
  process.on("message", (message) => {
    inbox.push(message);
    wake?.();
  });
  return {
    async next() {
      while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return inbox.shift();
    },
  };
}

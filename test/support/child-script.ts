import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "../..");

/** How a child script ended: its exit code, or the signal that killed it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A test script running in its own Node process (through tsx), spoken to in JSON lines. */
export interface ChildScript {
  /** Every JSON line the child printed on stdout so far, parsed, in order. */
  readonly messages: unknown[];
  /** Called for each JSON line as it arrives (after it is added to `messages`). */
  onMessage(listener: (message: unknown) => void): void;
  /** What the child wrote on stderr so far. */
  stderr(): string;
  /** Closes the child's stdin (the scripts here take that as "finish what you are doing and exit"). */
  endInput(): void;
  /** Settles when the child has exited and its output has been read. */
  readonly exited: Promise<ChildExit>;
}

/**
 * Starts `script` (a path from the repository root) with `args`. A child that dies of an unhandled error
 * shows as a non-zero exit with the error on stderr, so a crash is never mistaken for a failed call.
 */
export function startScript(script: string, args: readonly string[]): ChildScript {
  const child = spawn(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), script, ...args], {
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
    exited,
  };
}

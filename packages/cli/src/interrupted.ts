import type { CliIo } from "./cli-io.ts";

/** A command stopped by Ctrl-C after leaving its work in a clean state; `message` says what was done. */
export class Interrupted extends Error {
  /** The shell's exit code for a SIGINT. */
  readonly exitCode = 130;
}

/**
 * Runs `work` with an AbortSignal that the first SIGINT aborts (a second one kills as usual), so a
 * long command can stop at a clean point instead of dying mid-write.
 */
export async function onInterrupt<T>(io: CliIo, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = (): void => {
    io.stderr("interrupted: stopping after the session being written…\n");
    controller.abort();
  };
  process.once("SIGINT", abort);
  try {
    return await work(controller.signal);
  } finally {
    process.removeListener("SIGINT", abort);
  }
}

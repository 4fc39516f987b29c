/**
 * What one CLI run writes to and reads from: its two output streams, its environment and its working
 * directory. The bin passes the process's own; tests run the CLI in process with their own.
 */
export interface CliIo {
  /** Writes text to standard output as given (no newline added). */
  stdout(text: string): void;
  /** Writes text to standard error as given (no newline added). */
  stderr(text: string): void;
  /** The environment variables the run sees (PALIMPSEST_DATABASE_URL, summarizer keys and endpoints). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The folder relative paths (files, the default database, `--db` paths) are resolved against. */
  readonly cwd: string;
  /** True when standard error is a terminal (progress lines are shown only there); absent means not. */
  readonly stderrIsTTY?: boolean;
}

/**
 * The IO of this process: its stdout, stderr, environment and working directory. A reader that stops
 * early (`palimpsest view … | head`) closes stdout's pipe: the rest of the output has nowhere to go and is
 * dropped, and the command finishes as it would have (no EPIPE crash, its own exit status).
 */
export function processIo(): CliIo {
  let stdoutClosed = false;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && !stdoutClosed) throw error;
    stdoutClosed = true;
  });
  return {
    stdout: (text) => {
      if (!stdoutClosed) process.stdout.write(text);
    },
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

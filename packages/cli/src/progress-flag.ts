import { Option } from "commander";
import type { CliIo } from "./cli-io.ts";

/** `--progress`: progress lines on stderr even when it is not a terminal (`import`, `replay`, `audit rebuild`). */
export function progressOption(): Option {
  return new Option("--progress", "print progress lines on stderr even when it is not a terminal");
}

/**
 * Whether a command prints its progress lines: on a terminal, or when `--progress` asks; a log or a pipe
 * gets none (a command may print one summary line at the end instead).
 */
export function showsProgress(io: CliIo, flags: { progress?: boolean }): boolean {
  return flags.progress === true || io.stderrIsTTY === true;
}

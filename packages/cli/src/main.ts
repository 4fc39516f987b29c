import { formatError, isPalimpsestError, reportError } from "@palimpsest/core";
import { Command, CommanderError } from "commander";
import { registerAudit } from "./commands/audit.ts";
import { registerCompact } from "./commands/compact.ts";
import { registerErase } from "./commands/erase.ts";
import { registerHandoff } from "./commands/handoff.ts";
import { registerHistory } from "./commands/history.ts";
import { registerImport } from "./commands/import.ts";
import { registerReplay } from "./commands/replay.ts";
import { registerReport } from "./commands/report.ts";
import { registerSessions } from "./commands/sessions.ts";
import { registerView } from "./commands/view.ts";
import { registerWatch } from "./commands/watch.ts";
import { Interrupted } from "./interrupted.ts";

/** Builds the `palimpsest` command with every subcommand registered. */
export function buildProgram(): Command {
  const program = new Command("palimpsest")
    .description("an event-sourced transcript store for LLM agents")
    .option("--db <url>", "postgres://… URL, SQLite file path or :memory: (default: ./.palimpsest/palimpsest.db)")
    .option("--json", "print machine-readable JSON")
    .exitOverride();
  registerImport(program);
  registerSessions(program);
  registerView(program);
  registerHistory(program);
  registerCompact(program);
  registerReplay(program);
  registerReport(program);
  registerAudit(program);
  registerWatch(program);
  registerHandoff(program);
  registerErase(program);
  return program;
}

/** Runs the CLI on `argv`; returns the process exit code (0 ok, 1 error, 2 usage). */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof Interrupted) {
      process.stderr.write(`interrupted: ${error.message}\n`);
      return error.exitCode;
    }
    const json = program.opts<{ json?: boolean }>().json === true;
    process.stderr.write(`${json ? JSON.stringify({ error: reportError(error) }) : formatError(error)}\n`);
    return isPalimpsestError(error, "VALIDATION") ? 2 : 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await runCli(process.argv.slice(2));
}

import { formatError, isPalimpsestError, reportError, ValidationError } from "@palimpsest/core";
import { Command, CommanderError } from "commander";
import { type CliIo, processIo } from "./cli-io.ts";
import { commandsFor, type RegisterCommand } from "./commands/command-loaders.ts";
import { Interrupted } from "./interrupted.ts";

/** Builds the `palimpsest` program with the given commands (see commandsFor), writing through `io`. */
function buildProgram(io: CliIo, commands: readonly RegisterCommand[]): Command {
  const program = new Command("palimpsest")
    .description("an event-sourced transcript store for LLM agents")
    .option("--db <url>", "postgres://… URL, SQLite file path or :memory: (default: ./.palimpsest/palimpsest.db)")
    .option("--tenant <id>", "the tenant whose sessions to read and write (default: $PALIMPSEST_TENANT, else default)")
    .option(
      "--keyring <dir>",
      "the local keyring's folder, for encrypted content (default: $PALIMPSEST_KEYRING; master key in $PALIMPSEST_MASTER_KEY)",
    )
    .option("--json", "print machine-readable JSON")
    // commander's own usage errors are printed like every other error, by runCli (outputError stays quiet)
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: () => {},
    })
    .exitOverride();
  for (const register of commands) register(program, io);
  return program;
}

/**
 * Runs the CLI on `argv` with `io` (default: this process's streams, environment and folder); returns
 * the exit code (0 ok, 1 error, 2 usage, 130 interrupted). Only the module of the command that runs is loaded.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const program = buildProgram(io, await commandsFor(argv));
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (thrown) {
    if (thrown instanceof CommanderError && HELP_CODES.has(thrown.code)) return thrown.exitCode === 0 ? 0 : 2;
    const error = thrown instanceof CommanderError ? usageError(thrown) : thrown;
    if (error instanceof Interrupted) {
      io.stderr(`interrupted: ${error.message}\n`);
      return error.exitCode;
    }
    const json = program.opts<{ json?: boolean }>().json === true;
    io.stderr(`${json ? JSON.stringify({ error: reportError(error) }) : formatError(error)}\n`);
    return isPalimpsestError(error, "VALIDATION") ? 2 : 1;
  }
}

/** commander's exits that printed help or a version, not an error. */
const HELP_CODES = new Set(["commander.help", "commander.helpDisplayed", "commander.version"]);

/** A usage error commander found (unknown option, bad choice, conflicting flags, …) as a VALIDATION error. */
function usageError(error: CommanderError): ValidationError {
  const message = error.message.replace(/^error: /, "");
  return new ValidationError(message, ["--help lists the command's arguments and flags"]);
}

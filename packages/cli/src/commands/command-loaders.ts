import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";

/** Registers one top-level command (its options, help and action) on the program. */
export type RegisterCommand = (program: Command, io: CliIo) => void;

/**
 * Every top-level command, in help order, by name: each module is imported only when its command runs
 * (or for help), so `palimpsest sessions` never loads the replay, report or watch code and what they import.
 */
export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<RegisterCommand>>> = {
  import: async () => (await import("./import.ts")).registerImport,
  sessions: async () => (await import("./sessions.ts")).registerSessions,
  view: async () => (await import("./view.ts")).registerView,
  history: async () => (await import("./history.ts")).registerHistory,
  expand: async () => (await import("./history.ts")).registerHistory,
  search: async () => (await import("./search.ts")).registerSearch,
  mcp: async () => (await import("./mcp.ts")).registerMcp,
  compact: async () => (await import("./compact.ts")).registerCompact,
  replay: async () => (await import("./replay.ts")).registerReplay,
  eval: async () => (await import("./eval.ts")).registerEval,
  report: async () => (await import("./report.ts")).registerReport,
  audit: async () => (await import("./audit.ts")).registerAudit,
  watch: async () => (await import("./watch.ts")).registerWatch,
  fork: async () => (await import("./fork.ts")).registerFork,
  handoff: async () => (await import("./handoff.ts")).registerHandoff,
  erase: async () => (await import("./erase.ts")).registerErase,
  maintain: async () => (await import("./maintain.ts")).registerMaintain,
  mirrored: async () => (await import("./mirrored.ts")).registerMirrored,
};

/**
 * The name of the command `argv` runs: its first word that is neither an option nor the value of the
 * global `--db` or `--tenant`; undefined when there is none (help, or only options).
 */
export function commandName(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--db" || arg === "--tenant") i++;
    else if (arg === "--") return argv[i + 1];
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/**
 * The register functions `argv` needs: only its command's when it names a known one, else all of them
 * (help, a mistyped command's suggestions), in help order and each once.
 */
export async function commandsFor(argv: readonly string[]): Promise<RegisterCommand[]> {
  const name = commandName(argv);
  const loader = name === undefined ? undefined : COMMAND_LOADERS[name];
  if (loader !== undefined) return [await loader()];
  const all = await Promise.all(Object.values(COMMAND_LOADERS).map((load) => load()));
  return [...new Set(all)];
}

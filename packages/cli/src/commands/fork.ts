import { definedFields } from "@palimpsest/core";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { withFlagNames } from "../flag-errors.ts";
import { integerOption } from "../flags.ts";
import { sessionIdByPrefix } from "../id-prefix.ts";
import { emit, type GlobalOptions } from "../output.ts";
import { withRuntime } from "../runtime.ts";

/** fork's options by the flags that give them. */
const FORK_FLAGS = { atTurn: "--turn", atSeq: "--seq", toSessionId: "--to" };

/**
 * `fork <session> [--turn N | --seq N] [--to <id>]`: starts a new session with the view the session had
 * after turn N (before its (N+1)-th user message) or at seq N, or now; linked back as a fork
 * (docs/library.md). Prints the fork's id, with `--json` its resume state.
 */
export function registerFork(program: Command, io: CliIo): void {
  program
    .command("fork <session>")
    .description("branch a session (by id, unique prefix or name): a new session with its view at a turn or seq")
    .addOption(
      integerOption(
        "--turn <n>",
        "fork after this many turns: before the (n+1)-th user message (0: before the first)",
        0,
      ).conflicts("seq"),
    )
    .addOption(integerOption("--seq <n>", "fork with the session's log up to and including this seq", 1))
    .option("--to <id>", "the fork's session id (default a new one); forking again to it returns it")
    .action(async (id: string, flags: { turn?: number; seq?: number; to?: string }) => {
      const global = program.opts<GlobalOptions>();
      const options = {
        ...definedFields({ atTurn: flags.turn, atSeq: flags.seq, toSessionId: flags.to }),
      };
      const fork = await withRuntime(
        global,
        io,
        async (runtime) => {
          const sessionId = await sessionIdByPrefix(runtime.store, id);
          // A turn or seq the session does not have is refused by fork: in the flags' names.
          const fork = await withFlagNames(FORK_FLAGS, () => runtime.fork(sessionId, options));
          return fork.resumeState();
        },
        "write",
      );
      emit(
        io,
        global,
        fork,
        (f) =>
          `forked ${f.lineage.parent?.sessionId} at seq ${f.lineage.parent?.atSeq} into ${f.sessionId}: ${f.liveMessages} messages, ${f.liveTokens} tokens`,
      );
    });
}

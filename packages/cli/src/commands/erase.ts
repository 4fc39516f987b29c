import { NotFoundError, ValidationError } from "@palimpsest/core";
import { eraseWithMirror, type Palimpsest } from "@palimpsest/runtime";
import { MirrorLog } from "@palimpsest/store";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { counted, emit, type GlobalOptions } from "../output.ts";
import { withRuntime } from "../runtime.ts";

/**
 * `erase <session>`: removes the session's content for good (docs/erasure.md). It cannot be undone, so it
 * runs only with `--yes`, whoever calls it (a terminal or a script): without it nothing is changed and the
 * command fails as a usage error. The session must be named by its full id or its name (no prefix: an
 * erasure names exactly what it removes; a name several sessions share is refused, listing them).
 * Hand-off successors and subagent sessions are erased by naming them too. A session mirrored from the
 * Claude Agent SDK loses its mirrored key too, dropped first, with the key's other sessions erased after
 * it (eraseWithMirror, docs/claude-agent-sdk.md).
 */
export function registerErase(program: Command, io: CliIo): void {
  program
    .command("erase <session>")
    .description("erase a session's content for good, keeping a content-free skeleton (needs --yes)")
    .option("--reason <text>", "why, kept in the session's erased event (operator text, not session content)")
    .option("--yes", "confirm: the content cannot be recovered afterwards")
    .action(async (sessionId: string, opts: { reason?: string; yes?: boolean }) => {
      const global = program.opts<GlobalOptions>();
      if (opts.yes !== true) {
        throw new ValidationError(`erasing ${sessionId} cannot be undone: run it again with --yes`, ["--yes: missing"]);
      }
      const result = await withRuntime(
        global,
        io,
        async (runtime, store) =>
          eraseWithMirror(
            runtime,
            new MirrorLog(store),
            await exactSession(runtime, sessionId),
            opts.reason === undefined ? {} : { reason: opts.reason },
          ),
        "write",
      );
      emit(io, global, result, (r) =>
        r.erased
          ? `erased ${r.sessionId}: ${counted(r.events, "event")} and ${counted(r.messages, "message")} now content-free (seq ${r.seq})`
          : `${r.sessionId} was already erased at ${r.erasedAt}; nothing changed`,
      );
    });
}

/** The session named by its full id or its name; NOT_FOUND saying so for anything else (a prefix, which other commands take). */
async function exactSession(runtime: Palimpsest, nameOrId: string): Promise<string> {
  try {
    return await runtime.resolveSession(nameOrId);
  } catch (error) {
    if (!(error instanceof NotFoundError && error.details.kind === "session")) throw error;
    throw new NotFoundError("session", nameOrId, {
      hint: "erase takes a session's full id or its name, never a prefix (`palimpsest sessions` lists them)",
    });
  }
}

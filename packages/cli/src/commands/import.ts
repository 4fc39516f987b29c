import { readFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { definedFields, type ImportFormat, NotFoundError, parseTranscript, ValidationError } from "@palimpsest/core";
import { importSessions } from "@palimpsest/store";
import { type Command, Option } from "commander";
import type { CliIo } from "../cli-io.ts";
import { Interrupted, onInterrupt } from "../interrupted.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { withRuntime } from "../runtime.ts";

const FORMATS: readonly ImportFormat[] = ["openai", "claude-code", "openhands", "swe-agent", "tau-bench"];

/** A progress reporter on stderr that prints at most every 10% (only for large inputs). */
function progress(io: CliIo, label: string, total: number): (done: number, of: number) => void {
  let shown = -1;
  return (done, of) => {
    if (total < 500 && of < 500) return;
    const pct = Math.floor((done / Math.max(of, 1)) * 10) * 10;
    if (pct === shown) return;
    shown = pct;
    io.stderr(`${label}: ${pct}% (${done}/${of})\n`);
  };
}

/**
 * `import <file> [--format …]`: imports a transcript, printing the session ids it created. Each session
 * is written whole in one append; Ctrl-C stops after the session being written and says how far it got.
 */
export function registerImport(program: Command, io: CliIo): void {
  program
    .command("import <file>")
    .description("import a transcript (format detected when --format is omitted)")
    .addOption(new Option("--format <format>", "the transcript's format (default: detected)").choices(FORMATS))
    .action(async (file: string, opts: { format?: ImportFormat }) => {
      const global = program.opts<GlobalOptions>();
      const text = await readFile(resolve(io.cwd, file), "utf8").catch((cause: unknown) => {
        throw new NotFoundError("file", file, { cause });
      });
      const lines = text.length > 1_000_000 ? text.split("\n").length : 0;
      const sessions = parseTranscript(text, {
        fileName: basename(file),
        ...definedFields({ format: opts.format }),
        onProgress: progress(io, "parsing", lines),
      });
      const messages = sessions.reduce((n, s) => n + s.items.length, 0);
      if (messages === 0) {
        throw new ValidationError(`${basename(file)}: no messages found`, [
          opts.format === undefined ? "the file holds no conversation" : `is it really --format ${opts.format}?`,
        ]);
      }
      const { results, interrupted } = await onInterrupt(io, (signal) =>
        withRuntime(
          global,
          io,
          async (runtime) => ({
            results: await importSessions(runtime, sessions, {
              file: basename(file),
              onProgress: progress(io, "writing", messages),
              signal,
            }),
            interrupted: signal.aborted,
          }),
          "write",
        ),
      );
      emit(io, global, results, (rows) =>
        table(
          ["session", "messages", "compactions", "status", "parent"],
          rows.map((r) => [
            r.sessionId,
            r.messages,
            r.compactions,
            r.created ? "created" : r.resumed ? "resumed" : "already imported",
            r.parentSessionId ?? "",
          ]),
        ),
      );
      if (interrupted && results.length < sessions.length) {
        const left = sessions.length - results.length;
        throw new Interrupted(
          `imported ${results.length} of ${sessions.length} sessions; ${left} not imported yet (none is half written) — run the same import again to finish`,
        );
      }
    });
}

import { basename } from "node:path";
import {
  definedFields,
  IMPORT_FORMATS,
  type ImportFormat,
  parseTranscript,
  TRANSCRIPT_FORMATS,
  ValidationError,
} from "@palimpsest/core";
import { importSessions } from "@palimpsest/runtime";
import { type Command, Option } from "commander";
import type { CliIo } from "../cli-io.ts";
import { Interrupted, onInterrupt } from "../interrupted.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { progressOption, showsProgress } from "../progress-flag.ts";
import { withRuntime } from "../runtime.ts";
import { readTranscriptFile } from "../transcript-file.ts";

/** Inputs from this many lines or messages on are large enough for progress lines. */
const LARGE_INPUT = 500;

/** A progress reporter on stderr that prints at most every 10% of a large input, when `live`. */
function progress(io: CliIo, label: string, total: number, live: boolean): (done: number, of: number) => void {
  let shown = -1;
  return (done, of) => {
    if (!live || (total < LARGE_INPUT && of < LARGE_INPUT)) return;
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
    .addOption(
      new Option(
        "--format <format>",
        `the transcript's format: ${TRANSCRIPT_FORMATS.map((f) => `${f.name}: ${f.summary}`).join("; ")} (default: detected)`,
      ).choices(IMPORT_FORMATS),
    )
    .addOption(progressOption())
    .action(async (file: string, opts: { format?: ImportFormat; progress?: boolean }) => {
      const global = program.opts<GlobalOptions>();
      // Progress lines on a terminal (or asked for); a log or a pipe gets one summary line instead.
      const live = showsProgress(io, opts);
      const text = await readTranscriptFile(io, file);
      const lines = text.length > 1_000_000 ? text.split("\n").length : 0;
      const sessions = parseTranscript(text, {
        fileName: basename(file),
        ...definedFields({ format: opts.format }),
        onProgress: progress(io, "parsing", lines, live),
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
              onProgress: progress(io, "writing", messages, live),
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
      if (!live && (lines >= LARGE_INPUT || messages >= LARGE_INPUT)) {
        io.stderr(
          `${basename(file)}: ${results.length} of ${sessions.length} sessions, ${messages} messages imported\n`,
        );
      }
      if (interrupted && results.length < sessions.length) {
        const left = sessions.length - results.length;
        throw new Interrupted(
          `imported ${results.length} of ${sessions.length} sessions; ${left} not imported yet (none is half written) — run the same import again to finish`,
        );
      }
    });
}

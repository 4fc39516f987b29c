import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { type ImportFormat, NotFoundError, parseTranscript, ValidationError } from "@palimpsest/core";
import { importSessions } from "@palimpsest/store";
import type { Command } from "commander";
import { emit, type GlobalOptions, table } from "../output.ts";
import { withRuntime } from "../runtime.ts";

const FORMATS: readonly ImportFormat[] = ["openai", "claude-code", "openhands", "swe-agent", "tau-bench"];

/** A progress reporter on stderr that prints at most every 10% (only for large inputs). */
function progress(label: string, total: number): (done: number, of: number) => void {
  let shown = -1;
  return (done, of) => {
    if (total < 500 && of < 500) return;
    const pct = Math.floor((done / Math.max(of, 1)) * 10) * 10;
    if (pct === shown) return;
    shown = pct;
    process.stderr.write(`${label}: ${pct}% (${done}/${of})\n`);
  };
}

/** `import <file> [--format …]`: imports a transcript, printing the session ids it created. */
export function registerImport(program: Command): void {
  program
    .command("import <file>")
    .description("import a transcript (format detected when --format is omitted)")
    .option("--format <format>", "openai | claude-code | openhands | swe-agent | tau-bench")
    .action(async (file: string, opts: { format?: ImportFormat }) => {
      const global = program.opts<GlobalOptions>();
      if (opts.format !== undefined && !FORMATS.includes(opts.format)) {
        throw new ValidationError(`unknown format ${opts.format}: expected ${FORMATS.join(", ")}`, ["--format"]);
      }
      const text = await readFile(file, "utf8").catch((cause: unknown) => {
        throw new NotFoundError("file", file, { cause });
      });
      const lines = text.length > 1_000_000 ? text.split("\n").length : 0;
      const sessions = parseTranscript(text, {
        fileName: basename(file),
        ...(opts.format === undefined ? {} : { format: opts.format }),
        onProgress: progress("parsing", lines),
      });
      const messages = sessions.reduce((n, s) => n + s.items.length, 0);
      if (messages === 0) {
        throw new ValidationError(`${basename(file)}: no messages found`, [
          opts.format === undefined ? "the file holds no conversation" : `is it really --format ${opts.format}?`,
        ]);
      }
      const results = await withRuntime(global, (runtime) =>
        importSessions(runtime, sessions, { file: basename(file), onProgress: progress("writing", messages) }),
      );
      emit(global, results, (rows) =>
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
    });
}

import { readFile } from "node:fs/promises";
import { NotFoundError, ValidationError } from "@palimpsest/core";
import { compactRange } from "@palimpsest/store";
import type { Command } from "commander";
import { emit, type GlobalOptions } from "../output.ts";
import { resumeByPrefix, withRuntime } from "../runtime.ts";

/** `compact <session> --summary-file <file> --from <id> --to <id>`: one explicit compaction. */
export function registerCompact(program: Command): void {
  program
    .command("compact <session>")
    .description("replace the live messages --from..--to with the summary in --summary-file")
    .requiredOption("--summary-file <file>", "file holding the summary text")
    .requiredOption("--from <message-id>", "first live message to supersede")
    .requiredOption("--to <message-id>", "last live message to supersede (widened over its tool results)")
    .action(async (id: string, opts: { summaryFile: string; from: string; to: string }) => {
      const global = program.opts<GlobalOptions>();
      const summary = await readFile(opts.summaryFile, "utf8").catch((cause: unknown) => {
        throw new NotFoundError("file", opts.summaryFile, { cause });
      });
      const events = await withRuntime(global, async (runtime) => {
        const session = await resumeByPrefix(runtime, id);
        return compactRange(session, { fromId: opts.from, toId: opts.to, summary });
      });
      const event = events[0];
      if (event?.type !== "messages.superseded") throw new ValidationError("no compaction was recorded", []);
      emit(global, event, (e) => {
        const { stats, targets, compactionId } = e.data;
        return `compaction ${compactionId}: superseded ${targets.length} messages, ${stats.tokensBefore} → ${stats.tokensAfter} tokens (reclaimed ${stats.tokensBefore - stats.tokensAfter})`;
      });
    });
}

import { MAX_RECALL_LIMIT } from "@palimpsest/runtime";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { integerOption } from "../flags.ts";
import { emit, type GlobalOptions, preview, table } from "../output.ts";
import { resumeByPrefix, withRuntime } from "../runtime.ts";

/**
 * `search <session> <query…>`: the original messages of a session (and of the sessions it came from)
 * holding any word of the query, superseded ones included (Session.recall), best first; with `--json`
 * the whole messages. Prints the offset of the next page when there is one.
 */
export function registerSearch(program: Command, io: CliIo): void {
  program
    .command("search <session> <query...>")
    .description("find the original messages of a session holding the query's words, compacted ones too")
    .addOption(
      integerOption("--limit <n>", `messages to print (1 to ${MAX_RECALL_LIMIT}; default 10)`, 1, MAX_RECALL_LIMIT),
    )
    .addOption(integerOption("--offset <n>", "messages to skip first (the next page's offset, as printed)", 0))
    .option("--no-lineage", "search this session's log only, not the sessions it was forked or handed off from")
    .action(async (id: string, words: string[], flags: { limit?: number; offset?: number; lineage: boolean }) => {
      const global = program.opts<GlobalOptions>();
      const query = words.join(" ");
      const { found, sessionId } = await withRuntime(global, io, async (runtime) => {
        const session = await resumeByPrefix(runtime, id);
        const options = { limit: flags.limit ?? 10, offset: flags.offset ?? 0, lineage: flags.lineage };
        return { found: await session.recall(query, options), sessionId: session.id };
      });
      emit(io, global, found, (result) => {
        if (result.messages.length === 0) return `no message holds any of: ${result.terms.join(" ")}`;
        const rows = result.messages.map((m) => [
          m.sessionId === sessionId ? m.seq : `${m.sessionId.slice(0, 8)}…:${m.seq}`,
          m.message.role,
          m.supersededBy === undefined ? "in view" : `compacted ${m.supersededBy.slice(0, 8)}`,
          preview(m.snippet, 100),
        ]);
        const next = result.nextOffset === null ? "" : `\nmore: --offset ${result.nextOffset}`;
        return `${table(["seq", "role", "where", "text"], rows)}${next}`;
      });
    });
}

import { messageText } from "@palimpsest/core";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { uniqueByPrefix } from "../id-prefix.ts";
import { emit, type GlobalOptions, preview, table } from "../output.ts";
import { resumeByPrefix, withRuntime } from "../runtime.ts";

/** `history <session>` and `expand <session> <compaction-id>`: the audit trail of compactions. */
export function registerHistory(program: Command, io: CliIo): void {
  program
    .command("history <session>")
    .description("list the compactions of a session with their targets, producer and stats")
    .action(async (id: string) => {
      const global = program.opts<GlobalOptions>();
      const history = await withRuntime(global, io, async (runtime) => (await resumeByPrefix(runtime, id)).history());
      emit(io, global, history, (records) =>
        records.length === 0
          ? "no compactions in this session"
          : table(
              ["compaction", "seq", "mode", "trigger", "targets", "tokens before → after", "producer"],
              records.map((r) => [
                r.compactionId,
                r.seq,
                r.mode,
                r.trigger,
                r.targets.length,
                `${r.stats.tokensBefore} → ${r.stats.tokensAfter}`,
                r.producer.policy,
              ]),
            ),
      );
    });

  program
    .command("expand <session> <compaction>")
    .description("print the original messages a compaction superseded")
    .option("--deep", "expand earlier summaries too, down to the first-appended messages")
    .action(async (id: string, compactionId: string, opts: { deep?: boolean }) => {
      const global = program.opts<GlobalOptions>();
      const { expanded, fullId } = await withRuntime(global, io, async (runtime) => {
        const session = await resumeByPrefix(runtime, id);
        const ids = (await session.history()).map((r) => r.compactionId);
        const fullId = uniqueByPrefix("compaction", compactionId, ids);
        return { expanded: await session.expand(fullId, opts.deep === true), fullId };
      });
      emit(io, global, expanded, (list) =>
        [
          `${list.length} original messages behind compaction ${fullId}:`,
          ...list.map(
            (e) =>
              `seq ${String(e.seq).padStart(5)} ${e.message.role.padEnd(9)} ${preview(messageText(e.message), 100)}`,
          ),
        ].join("\n"),
      );
    });
}

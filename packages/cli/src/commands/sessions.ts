import type { Command } from "commander";
import { emit, type GlobalOptions, table } from "../output.ts";
import { withRuntime } from "../runtime.ts";

/** `sessions`: the session catalogue with message counts, live tokens and compactions. */
export function registerSessions(program: Command): void {
  program
    .command("sessions")
    .description("list sessions with live messages, live tokens and compactions")
    .action(async () => {
      const global = program.opts<GlobalOptions>();
      const rows = await withRuntime(global, async (runtime) => {
        const out = [];
        for (const summary of await runtime.sessions()) {
          const session = await runtime.resume(summary.sessionId);
          const r = session.resumeState();
          out.push({
            sessionId: summary.sessionId,
            title: r.settings?.title ?? r.settings?.source?.externalId ?? "",
            events: summary.version,
            liveMessages: r.liveMessages,
            liveTokens: r.liveTokens,
            compactions: r.compactions,
            parent: r.lineage.parent?.sessionId ?? "",
            handedOffTo: r.lineage.handedOffTo ?? "",
            updatedAt: summary.updatedAt,
          });
        }
        return out;
      });
      emit(global, rows, (list) =>
        list.length === 0
          ? "no sessions yet: try `palimpsest import <file>`"
          : table(
              ["session", "live msgs", "live tokens", "compactions", "title"],
              list.map((s) => [s.sessionId, s.liveMessages, s.liveTokens, s.compactions, s.title.slice(0, 40)]),
            ),
      );
    });
}

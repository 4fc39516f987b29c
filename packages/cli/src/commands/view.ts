import { messageText } from "@palimpsest/core";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { emit, type GlobalOptions, preview } from "../output.ts";
import { printRequestBody, type RequestFormat, requestFormatOption } from "../request-body.ts";
import { resumeByPrefix, withRuntime } from "../runtime.ts";

/** `view <session> [--format openai|anthropic]`: the active prompt view. */
export function registerView(program: Command, io: CliIo): void {
  program
    .command("view <session>")
    .description("show the active view; --format prints it as an OpenAI or Anthropic request body")
    .addOption(requestFormatOption())
    .action(async (id: string, opts: { format?: RequestFormat }) => {
      const global = program.opts<GlobalOptions>();
      const { format } = opts;
      const { view, erasedAt } = await withRuntime(global, io, async (runtime) => {
        const session = await resumeByPrefix(runtime, id);
        return { view: session.view(), erasedAt: session.resumeState().erasedAt };
      });
      if (format !== undefined) return printRequestBody(io, view.messages, format);
      const erased = erasedAt === undefined ? "" : ` (erased ${erasedAt}: its messages are tombstones)`;
      emit(io, global, view, (v) =>
        [
          `session ${v.sessionId}${erased}: ${v.messages.length} live messages, ${v.tokens} tokens, view version ${v.viewVersion}`,
          ...v.messages.map((m, i) => {
            const calls = (m.toolCalls ?? []).map((c) => ` → ${c.name}(${preview(c.arguments, 40)})`).join("");
            return `${String(i).padStart(4)} ${m.role.padEnd(9)} ${preview(messageText(m), 90)}${calls}`;
          }),
        ].join("\n"),
      );
    });
}

import { definedFields } from "@palimpsest/core";
import { DEFAULT_SESSION_PAGE_SIZE, MAX_SESSION_PAGE_SIZE } from "@palimpsest/store";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { openCommandStore } from "../database.ts";
import { integerOption } from "../flags.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { type SessionRowsPage, sessionRows } from "../session-rows.ts";

/**
 * `sessions [--limit n] [--after cursor]`: one page of the session catalogue, newest first, with names,
 * message counts, live tokens and compactions. `--json` prints `{ sessions, next }`; `next` (null on the last
 * page) is the `--after` of the next page, and the text output ends with that command.
 */
export function registerSessions(program: Command, io: CliIo): void {
  program
    .command("sessions")
    .description("list sessions (newest first, a page at a time) with live messages, live tokens and compactions")
    .addOption(
      integerOption(
        "--limit <n>",
        `at most this many sessions (1 to ${MAX_SESSION_PAGE_SIZE})`,
        1,
        MAX_SESSION_PAGE_SIZE,
      ).default(DEFAULT_SESSION_PAGE_SIZE),
    )
    .option("--after <cursor>", "the page after this cursor (printed as `next` by the previous page)")
    .action(async (flags: { limit: number; after?: string }) => {
      const global = program.opts<GlobalOptions>();
      const { limit } = flags;
      const store = await openCommandStore(global, io, "read");
      let page: SessionRowsPage;
      try {
        page = await sessionRows(store, { limit, ...definedFields({ after: flags.after }) });
      } finally {
        await store.close();
      }
      emit(io, global, page, (p) => render(p, flags.after !== undefined, limit));
    });
}

function render(page: SessionRowsPage, later: boolean, limit: number): string {
  if (page.sessions.length === 0) return later ? "no more sessions" : "no sessions yet: try `palimpsest import <file>`";
  const rows = table(
    ["session", "name", "live msgs", "live tokens", "compactions", "title"],
    page.sessions.map((s) => [s.sessionId, s.name, s.liveMessages, s.liveTokens, s.compactions, s.title.slice(0, 40)]),
  );
  if (page.next === null) return rows;
  const more = limit === DEFAULT_SESSION_PAGE_SIZE ? "" : ` --limit ${limit}`;
  return `${rows}\nmore sessions: palimpsest sessions${more} --after ${page.next}`;
}

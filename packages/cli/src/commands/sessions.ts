import { definedFields } from "@palimpsest/core";
import { DEFAULT_SESSION_PAGE_SIZE, MAX_SESSION_PAGE_SIZE } from "@palimpsest/store";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { openCommandStore } from "../database.ts";
import { integerOption } from "../flags.ts";
import { emit, type GlobalOptions, preview, table } from "../output.ts";
import { forkLabel, type SessionRow, type SessionRowsPage, sessionRows } from "../session-rows.ts";

/**
 * `sessions [--limit n] [--after cursor]`: one page of the session catalogue, newest first, with names
 * (a fork's derived from its parent's), parents, message counts, live tokens, compactions and titles (else
 * the first user words; an erased session says when it was erased). `--json` prints `{ sessions, next }`; `next` (null on the last
 * page) is the `--after` of the next page, and the text output ends with that command.
 */
export function registerSessions(program: Command, io: CliIo): void {
  program
    .command("sessions")
    .description(
      "list sessions (newest first, a page at a time): names, parents, live messages and tokens, compactions, titles",
    )
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
      emit(io, global, page, (p) => render(p, flags.after !== undefined, limit, store.tenant));
    });
}

/**
 * Widest name and parent (a UUID's 36 characters) and title shown; longer ones end in "…" (`--json` has
 * them whole). The parent column shows the parent's name, else its id.
 */
const NAME_WIDTH = 36;
const TITLE_WIDTH = 50;

function render(page: SessionRowsPage, later: boolean, limit: number, tenant: string): string {
  if (page.sessions.length === 0) {
    if (later) return "no more sessions";
    return `no sessions yet in tenant ${tenant}: try \`palimpsest import <file>\`, or name another tenant (--tenant)`;
  }
  const rows = table(
    ["session", "name", "parent", "live msgs", "live tokens", "compactions", "title"],
    page.sessions.map((s) => [
      s.sessionId,
      nameCell(s),
      preview(s.parentName || s.parent, NAME_WIDTH),
      s.liveMessages,
      s.liveTokens,
      s.compactions,
      s.erasedAt === "" ? preview(s.title, TITLE_WIDTH) : `(erased ${s.erasedAt})`,
    ]),
  );
  if (page.next === null) return rows;
  const more = limit === DEFAULT_SESSION_PAGE_SIZE ? "" : ` --limit ${limit}`;
  return `${rows}\nmore sessions: palimpsest sessions${more} --after ${page.next}`;
}

/**
 * A session's name as the table shows it, at most NAME_WIDTH characters: a subagent's marked `↳` and without
 * its parent's name in front (a Claude Code sidechain is named `<parent's name>:sidechain:<uuid>`); a fork
 * without a name keeps its `(fork @turn N)` whole, its parent's name shortened before it.
 */
function nameCell(s: SessionRow): string {
  if (s.name === "" && s.forkTurn !== null) {
    const suffix = forkLabel("", s.forkTurn);
    return forkLabel(preview(s.label.slice(0, -suffix.length), NAME_WIDTH - suffix.length), s.forkTurn);
  }
  if (s.relation !== "subagent") return preview(s.label, NAME_WIDTH);
  const own =
    s.parentName !== "" && s.label.startsWith(`${s.parentName}:`) ? s.label.slice(s.parentName.length + 1) : s.label;
  return preview(`↳ ${own}`, NAME_WIDTH);
}

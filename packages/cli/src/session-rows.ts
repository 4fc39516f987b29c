import { isUserRequest, type LiveEntry, messageText } from "@palimpsest/core";
import { resumeState } from "@palimpsest/projections";
import { loadSession } from "@palimpsest/runtime";
import type { OpenedEventStore, SessionPageOptions } from "@palimpsest/store";
import { preview } from "./output.ts";

/** Characters of a session's first user message that stand for its title when it has none. */
const FIRST_WORDS = 60;

/** One row of `sessions`: the catalogue entry and what its state says of the view and lineage. */
export interface SessionRow {
  sessionId: string;
  /** The session's name (its source's external id, which commands take in place of the id); "" when none. */
  name: string;
  /**
   * What `sessions` calls it: its name; for a fork without one, its parent's name (else the parent's id)
   * and where it forked, e.g. `main (fork @turn 3)`.
   */
  label: string;
  /** Its title, else the first words of its first live user message; "" when it has neither. */
  title: string;
  events: number;
  liveMessages: number;
  liveTokens: number;
  compactions: number;
  /** The session it came from (a fork's, a subagent's, a hand-off successor's), "" when none. */
  parent: string;
  /** How it came from `parent`: `fork`, `subagent` or `handoff`; "" when it has no parent. */
  relation: string;
  /** The parent's name, "" when it has none (or no parent). */
  parentName: string;
  /** For a fork: the parent's turns up to where it forked (`fork --turn`'s N); null for any other session. */
  forkTurn: number | null;
  handedOffTo: string;
  updatedAt: string;
  /** When its content was erased; "" while it has not been. */
  erasedAt: string;
}

/** A page of `sessions` rows and the cursor of the next page (null on the last). */
export interface SessionRowsPage {
  sessions: SessionRow[];
  next: string | null;
}

/**
 * One page of the catalogue (newest first) as `sessions` rows: one indexed query for the page, then each
 * of its sessions loaded from its snapshot plus newer events, and for each one with a parent the parent's
 * name (and for a fork the parent's log up to the fork, to count its turns). The cost follows the page,
 * never the number of sessions in the store.
 */
export async function sessionRows(store: OpenedEventStore, options: SessionPageOptions): Promise<SessionRowsPage> {
  const page = await store.listSessionPage(options);
  const sessions: SessionRow[] = [];
  for (const summary of page.sessions) {
    const { state } = await loadSession(store, summary.sessionId);
    const r = resumeState(state);
    const link = r.lineage.parent;
    const name = summary.name ?? "";
    const parentName = link === undefined ? "" : ((await store.getSession(link.sessionId))?.name ?? "");
    const forkTurn = link?.relation === "fork" ? await turnsUpTo(store, link.sessionId, link.atSeq) : null;
    sessions.push({
      sessionId: summary.sessionId,
      name,
      label: name !== "" || forkTurn === null ? name : forkLabel(parentName || (link?.sessionId ?? ""), forkTurn),
      title: r.settings?.title ?? firstUserWords(state.live),
      events: summary.version,
      liveMessages: r.liveMessages,
      liveTokens: r.liveTokens,
      compactions: r.compactions,
      parent: link?.sessionId ?? "",
      relation: link?.relation ?? "",
      parentName,
      forkTurn,
      handedOffTo: r.lineage.handedOffTo ?? "",
      updatedAt: summary.updatedAt,
      erasedAt: summary.erasedAt ?? "",
    });
  }
  return { sessions, next: page.next };
}

/** The name of a fork without one: its parent's (name, else id) and the turn it forked after. */
export function forkLabel(parent: string, turn: number): string {
  return `${parent} (fork @turn ${turn})`;
}

/** User turns in a session's log up to `atSeq` (the whole log without one): where a fork of it begins. */
async function turnsUpTo(store: OpenedEventStore, sessionId: string, atSeq: number | undefined): Promise<number> {
  const events = await store.readStream(sessionId, atSeq === undefined ? {} : { toSeq: atSeq });
  return events.filter((e) => e.type === "message.appended" && e.data.message.role === "user").length;
}

/**
 * The first words a user wrote in a view, on one line: the first user request (isUserRequest: not a message a
 * harness wrote in the user's role, such as a system reminder, local command output or an interruption) with
 * words once the tags in it are left out (`<system-reminder>` blocks, tags such as `<command-message>`); ""
 * when none.
 */
function firstUserWords(view: readonly LiveEntry[]): string {
  for (const entry of view) {
    if (entry.placedBy !== undefined || !isUserRequest(entry.message)) continue;
    const words = messageText(entry.message)
      .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, " ")
      .replace(/<\/?[a-z][\w-]*>/gi, " ")
      .trim();
    if (words !== "") return preview(words, FIRST_WORDS);
  }
  return "";
}

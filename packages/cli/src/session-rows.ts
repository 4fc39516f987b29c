import { resumeState } from "@palimpsest/projections";
import { loadSession, type OpenedEventStore, type SessionPageOptions } from "@palimpsest/store";

/** One row of `sessions`: the catalogue entry and what its state says of the view and lineage. */
export interface SessionRow {
  sessionId: string;
  /** The session's name (its source's external id, which commands take in place of the id); "" when none. */
  name: string;
  title: string;
  events: number;
  liveMessages: number;
  liveTokens: number;
  compactions: number;
  parent: string;
  handedOffTo: string;
  updatedAt: string;
}

/** A page of `sessions` rows and the cursor of the next page (null on the last). */
export interface SessionRowsPage {
  sessions: SessionRow[];
  next: string | null;
}

/**
 * One page of the catalogue (newest first) as `sessions` rows: one indexed query for the page, then each
 * of its sessions loaded from its snapshot plus newer events. The cost follows the page, never the
 * number of sessions in the store.
 */
export async function sessionRows(store: OpenedEventStore, options: SessionPageOptions): Promise<SessionRowsPage> {
  const page = await store.listSessionPage(options);
  const sessions: SessionRow[] = [];
  for (const summary of page.sessions) {
    const r = resumeState((await loadSession(store, summary.sessionId)).state);
    sessions.push({
      sessionId: summary.sessionId,
      name: summary.name ?? "",
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
  return { sessions, next: page.next };
}

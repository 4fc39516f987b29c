import { createHash } from "node:crypto";
import type { ImportedSession, Message, Usage } from "@palimpsest/core";
import type { Palimpsest } from "../runtime/palimpsest.ts";
import type { Session } from "../runtime/session.ts";

/** What an import did with one source session. */
export interface ImportedSessionResult {
  sessionId: string;
  externalId: string;
  parentSessionId?: string;
  messages: number;
  compactions: number;
  /** False when the session was already in the store: importing twice creates nothing new. */
  created: boolean;
  /** True when the session existed but an earlier import of it had stopped short, and this one finished it. */
  resumed: boolean;
}

/** Progress of an import, in messages written over messages to write. */
export type ImportProgress = (done: number, total: number) => void;

const BATCH = 200;

/** A stable session id for a source session: the same file always maps to the same sessions. */
export function importedSessionId(format: string, externalId: string): string {
  const hex = createHash("sha256").update(`palimpsest-import:${format}:${externalId}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Writes parsed transcripts into the store, parents before subagents. Messages go in batches; an
 * assistant message with provider usage closes a turn; a compaction boundary becomes one supersede
 * event over everything live before it. Items already in the log are passed over (ids are
 * deterministic), so importing twice writes nothing and an import that was cut short is finished.
 */
export async function importSessions(
  runtime: Palimpsest,
  sessions: readonly ImportedSession[],
  options: { file?: string; onProgress?: ImportProgress } = {},
): Promise<ImportedSessionResult[]> {
  const total = sessions.reduce((n, s) => n + s.items.length, 0);
  let done = 0;
  const results: ImportedSessionResult[] = [];
  for (const source of [...sessions].sort(
    (a, b) => Number(a.parentExternalId !== undefined) - Number(b.parentExternalId !== undefined),
  )) {
    const sessionId = importedSessionId(source.format, source.externalId);
    const parentSessionId =
      source.parentExternalId === undefined ? undefined : importedSessionId(source.format, source.parentExternalId);
    const result: ImportedSessionResult = {
      sessionId,
      externalId: source.externalId,
      messages: source.items.filter((i) => i.kind === "message").length,
      compactions: source.items.filter((i) => i.kind === "compaction").length,
      created: false,
      resumed: false,
      ...(parentSessionId === undefined ? {} : { parentSessionId }),
    };
    results.push(result);
    const existing = (await runtime.store.getSession(sessionId)) !== undefined;
    const session = existing
      ? await runtime.resume(sessionId)
      : await runtime.startSession({
          sessionId,
          ...(source.model === undefined ? {} : { model: source.model }),
          ...(source.title === undefined ? {} : { title: source.title }),
          ...(parentSessionId === undefined
            ? {}
            : { parent: { sessionId: parentSessionId, relation: "subagent" as const } }),
          source: {
            format: source.format,
            externalId: source.externalId,
            ...(options.file === undefined ? {} : { file: options.file }),
          },
        });
    // Items already in the log (an earlier import, or one cut short) are passed over: ids are deterministic.
    const written = session.state.messageSeq;
    const pending = source.items.filter(
      (item) => !written.has(item.kind === "message" ? item.message.id : item.summary.id),
    );
    done += source.items.length - pending.length;
    options.onProgress?.(done, total);
    if (pending.length === 0) continue;
    await writeItems(session, { ...source, items: pending }, (n) => {
      done += n;
      options.onProgress?.(done, total);
    });
    result.created = !existing;
    result.resumed = existing;
  }
  return results;
}

async function writeItems(session: Session, source: ImportedSession, advance: (n: number) => void): Promise<void> {
  let batch: Message[] = [];
  const flush = async (usage?: Usage): Promise<void> => {
    if (batch.length === 0) return;
    const last = batch[batch.length - 1] as Message;
    await session.append(batch, usage === undefined ? {} : { turnId: last.id });
    if (usage !== undefined) await session.completeTurn(last.id, usage);
    advance(batch.length);
    batch = [];
  };
  for (const item of source.items) {
    if (item.kind === "message") {
      batch.push(item.message);
      if (item.usage !== undefined) await flush(item.usage);
      else if (batch.length >= BATCH) await flush();
      continue;
    }
    await flush();
    const before = session.state.liveTokens;
    const tokens = (await session.tokenCounter()).countMessage(item.summary);
    await session.supersede({
      compactionId: `${item.summary.id}:compaction`,
      targets: session.state.live.map((e) => e.message.id),
      replacements: [{ kind: "summary", message: item.summary, tokens }],
      mode: "import",
      basis: { viewVersion: session.state.viewVersion },
      producer: { policy: `${source.format}-import` },
      stats: { tokensBefore: before, tokensAfter: tokens },
      trigger: item.trigger === "manual" ? "manual" : "auto",
    });
    advance(1);
  }
  await flush();
}

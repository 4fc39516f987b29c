import { createHash } from "node:crypto";
import {
  ConcurrencyConflict,
  canonicalJson,
  checkOptions,
  definedFields,
  evolve,
  foldEvents,
  type ImportedSession,
  initialState,
  keysOfEvents,
  logKeysOf,
  type Message,
  messageKey,
  type OptionShape,
  OptionValues,
  type SessionStarted,
  type SessionState,
  type TokenCounter,
} from "@palimpsest/core";
import { encodingForModel } from "@palimpsest/core/tokenizer";
import type { Palimpsest } from "../palimpsest/palimpsest.ts";
import { Contention } from "../runtime/contention.ts";
import { answerMayBeLost } from "../runtime/lost-answer.ts";
import { planImport } from "./import-plan.ts";
import { type Revision, revisedMessages } from "./revisions.ts";

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

/** Progress of an import, in items written over items to write. */
export type ImportProgress = (done: number, total: number) => void;

/** Options of importSessions. */
export interface ImportOptions {
  /** The source file's name, recorded in each session's start. */
  file?: string;
  onProgress?: ImportProgress;
  /** Stops the import between sessions (a session is never half written); the results say which were done. */
  signal?: AbortSignal;
}

/** Every key of ImportOptions with its value's schema (checkOptions). */
const IMPORT_OPTION_SHAPE: OptionShape<ImportOptions> = {
  file: OptionValues.text,
  onProgress: OptionValues.fn,
  signal: OptionValues.object,
};

/** A stable session id for a source session: the same file always maps to the same sessions. */
export function importedSessionId(format: string, externalId: string): string {
  const hex = createHash("sha256").update(`palimpsest-import:${format}:${externalId}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Writes parsed transcripts into the store, parents before subagents, each session in one append: a
 * session is in the store whole or not at all, so an interrupted import leaves nothing half written.
 * Events keep the transcript's own times (`occurredAt`; the store adds `recordedAt`). Items already in
 * the log are passed over (ids are deterministic), so importing twice writes nothing and an import cut
 * short by an older version is finished. The append's idempotency key derives from the session's version
 * and the items it writes, so two processes importing the same file at once both succeed: the second
 * append finds the first one's key and returns its result.
 */
export async function importSessions(
  runtime: Palimpsest,
  sessions: readonly ImportedSession[],
  options: ImportOptions = {},
): Promise<ImportedSessionResult[]> {
  checkOptions("importSessions", options, IMPORT_OPTION_SHAPE);
  const total = sessions.reduce((n, s) => n + s.items.length, 0);
  let done = 0;
  const results: ImportedSessionResult[] = [];
  for (const source of [...sessions].sort(
    (a, b) => Number(a.parentExternalId !== undefined) - Number(b.parentExternalId !== undefined),
  )) {
    // A turn of the event loop between sessions: SQLite writes are synchronous, and without it a signal
    // handler (Ctrl-C aborting `signal`) or a timer could not run until the whole import is done.
    await new Promise((turn) => setImmediate(turn));
    if (options.signal?.aborted === true) break;
    const result = await importOne(runtime, source, options.file);
    results.push(result);
    done += source.items.length;
    options.onProgress?.(done, total);
  }
  return results;
}

async function importOne(runtime: Palimpsest, source: ImportedSession, file?: string): Promise<ImportedSessionResult> {
  const parentSessionId =
    source.parentExternalId === undefined ? undefined : importedSessionId(source.format, source.parentExternalId);
  return importSession(runtime, source, {
    sessionId: importedSessionId(source.format, source.externalId),
    ...definedFields({ parentSessionId }),
    ...definedFields({ file }),
  });
}

/** Where importSession writes a source session, and how it treats what it wrote before. */
export interface ImportTarget {
  sessionId: string;
  parentSessionId?: string;
  /** The source file's name, recorded in the session's start. */
  file?: string;
  /**
   * A message already in the log whose source changed since (a mirror's last assistant message that
   * gained content blocks) is replaced by its new version under a new id; without it, it is passed over.
   */
  revise?: boolean;
  /**
   * Where a caller that imports into the session again and again (a mirror's fold) keeps its state and log
   * keys between imports: an import reads only the events stored after them, and leaves them as its
   * append left the log. Emptied when an import fails or finds its append already written (the next one
   * reads the whole log again).
   */
  log?: ImportedLog;
}

/** A session's folded state and log keys as the last import into it left them (ImportTarget.log). */
export interface ImportedLog {
  current: { state: SessionState; keys: Set<string> } | undefined;
}

/**
 * Brings one session of the store up to date with a parsed source session, in one append: its start if
 * it is new, then the items the log does not hold yet (and the revisions, with `revise`). The append's
 * idempotency key derives from the version it starts at and what it writes, so two processes importing
 * the same items at once both succeed; another writer moving the session first (a mirror's fold in
 * another process) makes it read the log again and plan again, for the runtime's contention timeout. An
 * append whose connection dropped under it is made again under its key (appendedOnce): the caller gets a
 * STORAGE error only when the server stays unreachable.
 */
export async function importSession(
  runtime: Palimpsest,
  source: ImportedSession,
  target: ImportTarget,
): Promise<ImportedSessionResult> {
  const { sessionId } = target;
  const contention = new Contention(runtime.contentionTimeoutMs);
  for (;;) {
    try {
      const attempt = await contention.planning(() => planSessionImport(runtime, source, target));
      if (attempt.append === undefined) return attempt.result;
      try {
        return await appendedOnce(attempt.append, contention);
      } catch (error) {
        if (!(error instanceof ConcurrencyConflict)) throw error;
        if (target.log !== undefined) target.log.current = undefined; // the plan folded what was not stored
        await contention.lost(sessionId, attempt.fromSeq, error.details.actual, error);
      }
    } catch (error) {
      if (target.log !== undefined) target.log.current = undefined;
      throw error;
    }
  }
}

/**
 * An import's keyed append (`again` once an attempt was made), made again while its connection drops under
 * it (answerMayBeLost), as often as a session's write is (Contention.dropped): under the same key and content
 * the store returns what an attempt that landed wrote, and appends the batch when none did. Another writer's
 * move (CONCURRENCY_CONFLICT) and any other failure are the caller's.
 */
async function appendedOnce(
  append: (again: boolean) => Promise<ImportedSessionResult>,
  contention: Contention,
): Promise<ImportedSessionResult> {
  for (let again = false; ; again = true) {
    try {
      return await append(again);
    } catch (error) {
      if (!answerMayBeLost(error)) throw error;
      await contention.dropped(error);
    }
  }
}

/**
 * The session's state and log keys: those `log` keeps, brought up to date with the events stored after
 * them, or folded from the whole log (and kept in `log`).
 */
async function readLog(
  runtime: Palimpsest,
  sessionId: string,
  log: ImportedLog | undefined,
): Promise<{ state: SessionState; keys: Set<string> }> {
  const kept = log?.current;
  if (kept === undefined) {
    const events = await runtime.store.readStream(sessionId);
    const read = { state: foldEvents(initialState(sessionId), events), keys: keysOfEvents(events) };
    if (log !== undefined) log.current = read;
    return read;
  }
  for (const event of await runtime.store.readStream(sessionId, { fromSeq: kept.state.lastSeq + 1 })) {
    evolve(kept.state, event);
    for (const key of logKeysOf(event)) kept.keys.add(key);
  }
  return kept;
}

/** One attempt of importSession: the result as it stands, and the append that brings the session up to date (if any). */
async function planSessionImport(
  runtime: Palimpsest,
  source: ImportedSession,
  target: ImportTarget,
): Promise<{
  result: ImportedSessionResult;
  fromSeq: number;
  append?: (again: boolean) => Promise<ImportedSessionResult>;
}> {
  const { sessionId, parentSessionId } = target;
  const result: ImportedSessionResult = {
    sessionId,
    externalId: source.externalId,
    messages: source.items.filter((i) => i.kind === "message").length,
    compactions: source.items.filter((i) => i.kind === "compaction").length,
    created: false,
    resumed: false,
    ...definedFields({ parentSessionId }),
  };
  const { state, keys } = await readLog(runtime, sessionId, target.log);
  const existing = state.lastSeq > 0;
  const started: SessionStarted | undefined = existing ? undefined : startOf(source, parentSessionId, target.file);
  const encoding = (state.started ?? started)?.encoding ?? encodingForModel(source.model);
  // Items already in the log (an earlier import, or one cut short) are passed over: ids are deterministic.
  const held = (item: ImportedSession["items"][number]) =>
    keys.has(messageKey(item.kind === "message" ? item.message.id : item.summary.id));
  const pending = source.items.filter((item) => !held(item));
  const revised = target.revise === true ? revisedMessages(state, source.items.filter(held)) : [];
  const fromSeq = state.lastSeq;
  if (pending.length === 0 && revised.length === 0) return { result, fromSeq };
  const counter = await precounted(await runtime.tokenCounter(encoding), pending, revised);
  const plan = planImport({ state, keys }, source, pending, counter, started, revised);
  const append = async (again: boolean) => {
    const written = await runtime.store.append(sessionId, plan.events, {
      expectedVersion: fromSeq === 0 ? "no-stream" : fromSeq,
      idempotencyKey: importKey(fromSeq, started, pending, revised),
      occurredAt: plan.times,
      ...(plan.viewVersion === undefined ? {} : { viewVersion: { expected: plan.viewVersion } }),
    });
    if (written.replayed) {
      // Written before: by another process a moment ago, at its own times (what was kept is read again), or
      // by this import's own attempt whose answer was lost (`again`: then it was this import that wrote it).
      if (target.log !== undefined) target.log.current = undefined;
      if (!again) return result;
    }
    return { ...result, created: !existing, resumed: existing };
  };
  return { result, fromSeq, append };
}

/**
 * The counter planImport counts with, every message it will count already counted here with
 * `countMessageAsync`: a long text (a 50 MB tool output) is counted in slices with turns of the event loop
 * between them, so an import or a mirror's fold never stalls the process (planning is synchronous).
 */
async function precounted(
  counter: TokenCounter,
  items: ImportedSession["items"],
  revised: readonly Revision[],
): Promise<TokenCounter> {
  const counts = new Map<Message, number>();
  const messages = [
    ...items.map((i) => (i.kind === "message" ? i.message : i.summary)),
    ...revised.map((r) => r.message),
  ];
  for (const message of messages) counts.set(message, await counter.countMessageAsync(message));
  return { ...counter, countMessage: (message) => counts.get(message) ?? counter.countMessage(message) };
}

/** The start of an imported session: model and title from the source, its parent, and where it came from. */
function startOf(source: ImportedSession, parentSessionId: string | undefined, file?: string): SessionStarted {
  return {
    ...definedFields({ model: source.model }),
    encoding: encodingForModel(source.model),
    ...definedFields({ title: source.title }),
    ...(parentSessionId === undefined ? {} : { parent: { sessionId: parentSessionId, relation: "subagent" as const } }),
    source: { format: source.format, externalId: source.externalId, ...definedFields({ file }) },
  };
}

/**
 * The idempotency key of an import append: the version it starts from, the start it writes and the
 * items, content included (two mirror folds of one key may hold the same item ids at different versions:
 * the trailing message grew, or a title line arrived, in between; the later fold must conflict and
 * retry, not be refused as a mismatch).
 */
function importKey(
  fromSeq: number,
  started: SessionStarted | undefined,
  items: ImportedSession["items"],
  revised: readonly Revision[],
): string {
  const hash = createHash("sha256");
  if (started !== undefined) hash.update(`start ${canonicalJson(started)}\n`);
  for (const item of items) hash.update(`${canonicalJson(item)}\n`);
  for (const r of revised) hash.update(`revise ${r.targetId}\n${canonicalJson(r.message)}\n`);
  return `import:${fromSeq}:${hash.digest("hex").slice(0, 32)}`;
}

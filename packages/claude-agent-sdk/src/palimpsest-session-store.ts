import type {
  McpSdkServerConfigWithInstance,
  SessionKey,
  SessionStore,
  SessionStoreEntry,
  SessionSummaryEntry,
} from "@anthropic-ai/claude-agent-sdk";
import {
  AmbiguousName,
  checkOptionKeys,
  IdempotencyMismatch,
  type MirrorKey,
  NotFoundError,
  StorageError,
} from "@palimpsest/core";
import { eraseMirrorKey, type MirrorErasure, type MirrorFolder, type Palimpsest } from "@palimpsest/runtime";
import type { MirrorLog } from "@palimpsest/store";
import { encodeEntries } from "./entry-codec.ts";
import { type RecallServerOptions, sdkRecallServer } from "./recall-server.ts";
import { toMirrorKey, toProjectKey, toSdkKey, toSessionId } from "./session-key.ts";
import { type SummaryFold, summaryFolder } from "./summary-fold.ts";

/** What a PalimpsestSessionStore is built from (see openSessionStore). */
export interface SessionStoreParts {
  runtime: Palimpsest;
  log: MirrorLog;
  folder: MirrorFolder;
  foldSummary: SummaryFold;
}

/**
 * The Claude Agent SDK's SessionStore on Palimpsest. Every entry the SDK mirrors is kept verbatim (a
 * uuid once per key) and folded in the background into a Palimpsest session, as `palimpsest import`
 * reads the same JSONL file, with views, audit and compaction history on it (`runtime`). `delete` is
 * an erasure (docs/claude-agent-sdk.md).
 */
export class PalimpsestSessionStore implements SessionStore {
  /** The Palimpsest runtime over the same database: sessions, views, audit of what is mirrored. */
  readonly runtime: Palimpsest;
  readonly #log: MirrorLog;
  readonly #folder: MirrorFolder;
  readonly #foldSummary: SummaryFold;
  /** The last write of each key in this process: appends and deletes of one key run in call order. */
  readonly #writes = new Map<string, Promise<unknown>>();
  #closed = false;

  constructor(parts: SessionStoreParts) {
    this.runtime = parts.runtime;
    this.#log = parts.log;
    this.#folder = parts.folder;
    this.#foldSummary = parts.foldSummary;
  }

  /**
   * Stores the batch's new entries in one write (a uuid the key holds is a retry or replay and
   * is passed over; one arriving with other content than the entry held is passed over too and reported
   * through `onError` as IdempotencyMismatch; entries without a uuid are stored as they come), folds the
   * session summary of a main key with the SDK's `foldSessionSummary` in the same write, and queues
   * the fold into Palimpsest. ValidationError, storing nothing, for a bad key or entry.
   */
  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    this.#open();
    const mirrorKey = toMirrorKey(key);
    const inputs = encodeEntries(entries);
    if (inputs.length === 0) return;
    const summarize = summaryFolder(this.#foldSummary, mirrorKey, inputs, entries);
    const result = await this.#serially(mirrorKey, () => this.#log.append(mirrorKey, inputs, summarize));
    if (result.stored > 0) this.#folder.touch(mirrorKey);
    for (const i of result.mismatched) {
      // Kept: the entry stored first under the uuid (the idempotency key); this one is passed over, not silently.
      const uuid = (entries[i] as SessionStoreEntry).uuid as string;
      this.#folder.report(new IdempotencyMismatch(mirrorKey.session, uuid), mirrorKey);
    }
  }

  /** The key's entries as appended, in append order; null for a key never written (or deleted). */
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    this.#open();
    const mirrorKey = toMirrorKey(key);
    const row = await this.#log.key(mirrorKey);
    if (row === undefined || row.nextSeq === 0) return null;
    const texts = await this.#log.entries(mirrorKey, row.generation);
    return texts.length === 0 ? null : texts.map((text) => JSON.parse(text) as SessionStoreEntry);
  }

  /** The project's main sessions with their last write time (integer epoch ms); [] for an unknown project. */
  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    this.#open();
    const rows = await this.#log.projectSessions(toProjectKey(projectKey));
    return rows.map((row) => ({ sessionId: row.session, mtime: row.mtimeMs }));
  }

  /** The summaries `append` folded, one per main session of the project, verbatim. */
  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    this.#open();
    const rows = await this.#log.projectSessions(toProjectKey(projectKey));
    return rows.flatMap((row) => (row.summary === null ? [] : [JSON.parse(row.summary) as SessionSummaryEntry]));
  }

  /**
   * Erases the key: a main key with all its subpaths, a subpath alone. The keys' entries are deleted in
   * one transaction (a crash leaves them all or none), then the Palimpsest sessions folded from them are
   * erased to their skeletons (audit totals stay true; what a crash left, the next openSessionStore
   * erases); `load` then returns null. A key never written: nothing happens.
   */
  async delete(key: SessionKey): Promise<void> {
    await this.erase(key);
  }

  /** `delete` with a reason kept in each erased session's `session.erased` event, and what it did. */
  async erase(key: SessionKey, options: { reason?: string } = {}): Promise<MirrorErasure> {
    this.#open();
    const mirrorKey = toMirrorKey(key);
    return this.#serially(mirrorKey, async () => {
      const keys = await this.#log.allKeysOf(mirrorKey.project, mirrorKey.session);
      for (const k of keys)
        if (mirrorKey.subpath === undefined || k.subpath === mirrorKey.subpath) await this.#folder.idle(k);
      return eraseMirrorKey(this.runtime, this.#log, mirrorKey, options.reason ?? "deleted through the SessionStore");
    });
  }

  /** The subpaths (subagent transcripts…) of a session holding entries; never the main key. */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    this.#open();
    const { project, session } = toMirrorKey(key);
    const rows = await this.#log.sessionKeys(project, session);
    return rows.flatMap((row) => (row.subpath === undefined ? [] : [row.subpath]));
  }

  /**
   * The Palimpsest sessions a key's entries are folded into, flushed first: its main thread first, then
   * its sidechain and subagent threads in the order their sessions were started (the order the fold
   * first met them). Pass one to `runtime.resume`, or name the SDK session id to the `palimpsest` command.
   * Given the SDK's session id alone, the main key holding it, whatever its project key (keysOf): [] when
   * none does, AmbiguousName (VALIDATION) listing the project keys when several do.
   */
  async sessionIds(key: SessionKey | string): Promise<string[]> {
    this.#open();
    const mirrorKey = typeof key === "string" ? await this.#mainKeyOf(key) : toMirrorKey(key);
    if (mirrorKey === undefined) return [];
    await this.#folder.flush(mirrorKey);
    const row = await this.#log.key(mirrorKey);
    return row === undefined ? [] : this.#log.sessionsIn(mirrorKey, row.generation);
  }

  /**
   * The main keys the SDK session id is stored under, one per project key holding it (sorted); [] when
   * none. The SDK keys a session by the project it runs in (`projectKey`, from the working directory),
   * so the id alone finds a session wherever it was stored from.
   */
  async keysOf(sessionId: string): Promise<SessionKey[]> {
    this.#open();
    const keys = await this.#log.mainKeysOf(toSessionId(sessionId));
    return keys.map((k) => toSdkKey({ project: k.project, session: k.session }));
  }

  /** The one main key holding `sessionId` (keysOf); AmbiguousName listing the project keys when several do. */
  async #mainKeyOf(sessionId: string): Promise<MirrorKey | undefined> {
    const keys = await this.keysOf(sessionId);
    if (keys.length > 1) {
      const projects = keys.map((k) => k.projectKey);
      throw new AmbiguousName(
        "project-key",
        sessionId,
        projects,
        `SDK session ${sessionId} is stored under ${keys.length} project keys (${projects.join(", ")}): pass its key, { projectKey, sessionId }`,
      );
    }
    return keys[0] === undefined ? undefined : toMirrorKey(keys[0]);
  }

  /**
   * An in-process MCP server for `query`'s `mcpServers`, serving `recall` and `expand` (docs/recall.md)
   * over the Palimpsest session the SDK session is folded into (its main thread, entries appended so far
   * folded first at each call): the model gets back, word for word, what Claude Code's compaction took
   * out of its context. `mcpServers: { palimpsest: await store.recallServer(sessionId) }`, with the
   * query's `sessionId` (or `resume`) naming the same session; given the SDK session id alone, the main
   * key holding it (as sessionIds). A call before anything of the session is stored answers NOT_FOUND.
   */
  async recallServer(
    session: SessionKey | string,
    options: RecallServerOptions = {},
  ): Promise<McpSdkServerConfigWithInstance> {
    this.#open();
    checkOptionKeys("recallServer", options, { name: true, maxTokens: true });
    // Checked now, not at the model's first call: a bad id would only show as a failing tool then.
    if (typeof session === "string") toSessionId(session);
    else toMirrorKey(session, "session");
    return sdkRecallServer(async () => {
      const [main] = await this.sessionIds(session);
      const id = typeof session === "string" ? session : session.sessionId;
      if (main === undefined) throw new NotFoundError("session", `SDK session ${id}`);
      return this.runtime.resume(main);
    }, options);
  }

  /** Folds every entry appended so far into its Palimpsest session now, trailing messages included. */
  async flush(): Promise<void> {
    this.#open();
    await Promise.all(this.#writes.values());
    await this.#folder.flush();
  }

  /** Finishes pending writes and folds, then closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    this.#folder.stop();
    await this.runtime.close();
  }

  #serially<T>(key: MirrorKey, write: () => Promise<T>): Promise<T> {
    const id = JSON.stringify([key.project, key.session, key.subpath ?? ""]);
    const previous = this.#writes.get(id) ?? Promise.resolve();
    const next = previous.then(write, write);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.#writes.set(id, settled);
    void settled.then(() => {
      if (this.#writes.get(id) === settled) this.#writes.delete(id);
    });
    return next;
  }

  #open(): void {
    if (this.#closed) throw new StorageError("sessionStore", "this PalimpsestSessionStore is closed");
  }
}

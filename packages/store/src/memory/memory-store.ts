import {
  type AppendOptions,
  type AppendResult,
  type ChangeListener,
  checkId,
  type DomainEvent,
  type EraseOptions,
  type ErasureResult,
  type GlobalCheckpoint,
  type GlobalPage,
  type HandoffQueuePort,
  type KeyedBatch,
  type LogKey,
  type MessageSearchHit,
  type MessageSearchQuery,
  type PrecompactionCandidate,
  type PurgeOptions,
  type PurgeResult,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RuntimeStore,
  type SessionSummary,
  type Snapshot,
  StorageError,
  type StoredEvent,
} from "@palimpsest/core";
import { fromRow, toRow } from "../candidate-store/candidate-row.ts";
import { prepareBatch } from "../engine/append-batch.ts";
import { ChangeNotifier } from "../engine/change-notifier.ts";
import { checkEraseOptions } from "../engine/erasure-outcome.ts";
import { checkPurgeOptions } from "../engine/erasure-purge.ts";
import { positionOfCheckpoint } from "../engine/global-log.ts";
import { toSessionSummary, toStoredEvent } from "../engine/row-mapping.ts";
import { checkSearchQuery, scanForTerms } from "../engine/search-query.ts";
import {
  decodeSessionCursor,
  encodeSessionCursor,
  type SessionPage,
  type SessionPageOptions,
  sessionPageLimit,
} from "../engine/session-page.ts";
import { tenantOption } from "../engine/tenant.ts";
import { MemoryHandoffQueue } from "./memory-handoff-queue.ts";
import { MemoryLog } from "./memory-log.ts";

/**
 * A store held in memory, for tests of an agent: what the runtime needs (`new Palimpsest({ store })`), with
 * the SQL stores' semantics and errors, plus the session catalogue's pages and `connect`. Plain
 * JavaScript: no driver, no file; the data goes with the process.
 */
export interface MemoryStore extends RuntimeStore {
  /** The tenant whose sessions the store reads and writes (MemoryStoreOptions.tenant). */
  readonly tenant: string;
  /** One page of the session catalogue, newest first, as OpenedEventStore.listSessionPage gives it. */
  listSessionPage(options?: SessionPageOptions): Promise<SessionPage>;
  /**
   * Another store on the same data, as a second process's connection would be: its own listeners and
   * `close`, of this store's tenant or `options.tenant`. Every store of a tenant hears each of its commits at
   * once; `listening()` is always undefined.
   */
  connect(options?: MemoryStoreOptions): MemoryStore;
}

/** How a memory store is created or connected to. */
export interface MemoryStoreOptions {
  /** The tenant whose sessions the store reads and writes, as OpenEventStoreOptions.tenant (default DEFAULT_TENANT). */
  tenant?: string;
}

/** A new, empty memory store (see MemoryStore); `connect` opens more stores on its data. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new MemoryEventStore(new Map(), tenantOption(options.tenant));
}

/** Orders the catalogue as the SQL stores do: newest first, then by id. */
const newestFirst = (a: SessionSummary, b: SessionSummary): number =>
  a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.sessionId < b.sessionId ? -1 : 1;

/** One handle on the MemoryLog of one tenant, among the logs of every tenant of the data (by tenant). */
class MemoryEventStore implements MemoryStore {
  readonly handoffQueue: HandoffQueuePort;
  readonly tenant: string;
  readonly #logs: Map<string, MemoryLog>;
  readonly #log: MemoryLog;
  readonly #changes = new ChangeNotifier();
  #closed = false;

  constructor(logs: Map<string, MemoryLog>, tenant: string) {
    let log = logs.get(tenant);
    if (log === undefined) {
      log = new MemoryLog();
      logs.set(tenant, log);
    }
    this.tenant = tenant;
    this.#logs = logs;
    this.#log = log;
    log.notifiers.add(this.#changes);
    this.handoffQueue = new MemoryHandoffQueue(log, (operation) => this.#ready(operation));
  }

  connect(options: MemoryStoreOptions = {}): MemoryStore {
    const tenant = options.tenant === undefined ? this.tenant : tenantOption(options.tenant);
    this.#ready("connect");
    return new MemoryEventStore(this.#logs, tenant);
  }

  async append(sessionId: string, events: readonly DomainEvent[], options: AppendOptions): Promise<AppendResult> {
    const batch = prepareBatch(sessionId, events, options, this.tenant);
    this.#ready("append");
    return this.#log.append(batch);
  }

  async readStream(sessionId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    this.#ready("readStream");
    checkId(sessionId, "sessionId");
    return this.#log.read(sessionId, options.fromSeq, options.toSeq);
  }

  /** Scans the sessions' messages (a memory store keeps no index): the rank is how many of the terms a message holds. */
  async searchMessages(query: MessageSearchQuery): Promise<MessageSearchHit[]> {
    this.#ready("searchMessages");
    const checked = checkSearchQuery(query);
    return scanForTerms(
      [...new Set(checked.sessionIds)].flatMap((id) => this.#log.read(id)),
      checked,
    );
  }

  async compactionsOf(sessionIds: readonly string[]): Promise<StoredEvent[]> {
    this.#ready("compactionsOf");
    for (const [i, id] of sessionIds.entries()) checkId(id, `sessionIds[${i}]`);
    const events = [...new Set(sessionIds)].flatMap((id) => this.#log.read(id));
    return events.filter((e) => e.type === "messages.superseded").sort((a, b) => a.position - b.position);
  }

  async readAll(options: ReadAllOptions = {}): Promise<GlobalPage> {
    this.#ready("readAll");
    const after = options.after ?? "";
    const from = positionOfCheckpoint(after);
    const rows = this.#log.events.slice(from, options.limit === undefined ? undefined : from + options.limit);
    const last = rows.at(-1);
    return {
      events: rows.map((row) => toStoredEvent(row)),
      checkpoint: last === undefined ? after : String(last.position),
    };
  }

  async globalHead(): Promise<GlobalCheckpoint> {
    this.#ready("globalHead");
    const last = this.#log.events.at(-1);
    return last === undefined ? "" : String(last.position);
  }

  async knownKeys(sessionId: string, keys: readonly LogKey[]): Promise<Set<LogKey>> {
    this.#ready("knownKeys");
    checkId(sessionId, "sessionId");
    const held = this.#log.sessions.get(sessionId)?.keys;
    return new Set(keys.filter((key) => held?.has(key)));
  }

  async keyedBatch(sessionId: string, idempotencyKey: string): Promise<KeyedBatch | undefined> {
    this.#ready("keyedBatch");
    checkId(sessionId, "sessionId");
    checkId(idempotencyKey, "idempotencyKey");
    const used = this.#log.sessions.get(sessionId)?.used.get(idempotencyKey);
    return used === undefined ? undefined : { firstSeq: used.firstSeq, lastSeq: used.lastSeq };
  }

  async getSession(sessionId: string): Promise<SessionSummary | undefined> {
    this.#ready("getSession");
    checkId(sessionId, "sessionId");
    const session = this.#log.sessions.get(sessionId);
    return session === undefined ? undefined : toSessionSummary(session.row);
  }

  async listSessions(): Promise<SessionSummary[]> {
    this.#ready("listSessions");
    return this.#catalogue();
  }

  async listSessionPage(options: SessionPageOptions = {}): Promise<SessionPage> {
    const limit = sessionPageLimit(options.limit);
    const after = options.after === undefined ? undefined : decodeSessionCursor(options.after);
    this.#ready("listSessionPage");
    const rest = this.#catalogue().filter(
      (s) =>
        after === undefined ||
        s.createdAt < after.createdAt ||
        (s.createdAt === after.createdAt && s.sessionId > after.sessionId),
    );
    const sessions = rest.slice(0, limit);
    const last = sessions.at(-1);
    return { sessions, next: rest.length > limit && last !== undefined ? encodeSessionCursor(last) : null };
  }

  async sessionsNamed(name: string): Promise<string[]> {
    this.#ready("sessionsNamed");
    checkId(name, "name");
    return [...this.#log.sessions.values()]
      .filter((s) => s.row.name === name)
      .map((s) => s.row.session_id)
      .sort();
  }

  async erase(sessionId: string, options: EraseOptions = {}): Promise<ErasureResult> {
    this.#ready("erase");
    checkId(sessionId, "sessionId");
    checkEraseOptions(options);
    return this.#log.erase(sessionId, options);
  }

  /** Nothing to rewrite: an erasure leaves no old copy in memory, and there are no files. */
  async purgeErased(options: PurgeOptions = {}): Promise<PurgeResult> {
    this.#ready("purgeErased");
    checkPurgeOptions(options);
    return { relations: [], waitedMs: 0, ms: 0 };
  }

  async saveSnapshot(snapshot: Snapshot): Promise<void> {
    this.#ready("saveSnapshot");
    this.#log.saveSnapshot(snapshot);
  }

  async loadSnapshot(sessionId: string): Promise<Snapshot | undefined> {
    this.#ready("loadSnapshot");
    const snapshot = this.#log.snapshots.get(sessionId);
    return snapshot === undefined ? undefined : { ...snapshot };
  }

  async deleteSnapshot(sessionId: string): Promise<void> {
    this.#ready("deleteSnapshot");
    this.#log.snapshots.delete(sessionId);
  }

  async saveCandidate(candidate: PrecompactionCandidate): Promise<boolean> {
    this.#ready("saveCandidate");
    return this.#log.saveCandidate(toRow(candidate));
  }

  async loadCandidate(sessionId: string): Promise<PrecompactionCandidate | undefined> {
    this.#ready("loadCandidate");
    const row = this.#log.candidates.get(sessionId);
    return row === undefined ? undefined : fromRow(row);
  }

  async deleteCandidate(sessionId: string): Promise<void> {
    this.#ready("deleteCandidate");
    this.#log.candidates.delete(sessionId);
  }

  subscribe(listener: ChangeListener): () => void {
    return this.#changes.subscribe(listener);
  }

  listening(): Promise<void> | undefined {
    return undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#log.notifiers.delete(this.#changes);
    await this.#changes.close();
  }

  /** Every session's catalogue entry, newest first. */
  #catalogue(): SessionSummary[] {
    return [...this.#log.sessions.values()].map((s) => toSessionSummary(s.row)).sort(newestFirst);
  }

  /** Throws the StorageError a closed SQL store's operation fails with. */
  #ready(operation: string): void {
    if (this.#closed) {
      throw new StorageError(operation, "the store is closed", { cause: new Error("MemoryStore.close() was called") });
    }
  }
}

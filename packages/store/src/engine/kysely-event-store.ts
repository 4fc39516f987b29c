import type {
  AppendOptions,
  AppendResult,
  ChangeFeed,
  ChangeListener,
  DomainEvent,
  EraseOptions,
  ErasureResult,
  EventStore,
  GlobalCheckpoint,
  GlobalPage,
  KeyedBatch,
  LogKey,
  MessageSearch,
  MessageSearchHit,
  MessageSearchQuery,
  PurgeOptions,
  PurgeResult,
  ReadAllOptions,
  ReadStreamOptions,
  SessionSummary,
  Snapshot,
  SnapshotStore,
  StoredEvent,
} from "@palimpsest/core";
import { checkId, eventSkeleton, InvariantViolation, NotFoundError } from "@palimpsest/core";
import { type CompiledQuery, type Kysely, type Selectable, sql } from "kysely";
import { uuidv7 } from "uuidv7";
import type { ContentCipher } from "../encryption/content-cipher.ts";
import { type PreparedBatch, prepareBatch, storedEventsOf } from "./append-batch.ts";
import { explainRejection } from "./append-rejection.ts";
import { ChangeNotifier } from "./change-notifier.ts";
import type { SessionsTable, StoreDatabase } from "./database-schema.ts";
import type { Engine } from "./dialect.ts";
import type { EngineAdapter, WrittenBatch } from "./engine-adapter.ts";
import { planErasure } from "./erase-session.ts";
import { checkEraseOptions, earlierErasure } from "./erasure-outcome.ts";
import { checkPurgeOptions, contentTables, tenths } from "./erasure-purge.ts";
import type { LockedPlan, ReadRows } from "./guarded-write.ts";
import {
  bytesRead,
  EVENT_COLUMNS,
  type EventRow,
  toIso,
  toSessionSummary,
  toSkeletonEvent,
  toStoredEvent,
} from "./row-mapping.ts";
import { openEventRows, sealBatch } from "./sealed-rows.ts";
import { openSnapshot, sealSnapshot } from "./sealed-snapshot.ts";
import { checkSearchQuery, scanForTerms } from "./search-query.ts";
import { sessionIdsNamed } from "./session-name-queries.ts";
import {
  decodeSessionCursor,
  encodeSessionCursor,
  type SessionPage,
  type SessionPageOptions,
  sessionPageLimit,
} from "./session-page.ts";
import { againOnDrop, guardRead, guardStorage, guardWrite, wasRolledBack } from "./storage-guard.ts";
import { grantAccess } from "./store-access.ts";
import type { StoreFeature } from "./store-feature.ts";
import { TenantScope } from "./tenant-scope.ts";

/** One append of a warm-up (KyselyEventStore.warmUpAppends): what append takes. */
export interface WarmUpAppend {
  /** The session the rehearsed append is for (a fresh id: nothing is written). */
  sessionId: string;
  /** The batch, as `append` takes it. */
  events: readonly DomainEvent[];
  /** Its expected version and fresh keys, as `append` takes them. */
  options: AppendOptions;
}

/** Keys looked up per query (one parameter each, well under SQLite's bound-parameter limit). */
const KEYS_PER_LOOKUP = 500;

/**
 * The one EventStore and SnapshotStore implementation: shared kysely queries over an engine adapter
 * (PostgreSQL or SQLite). Every database error surfaces as a StorageError with its cause. Features keep
 * their tables beside the log through storeAccess; an erasure runs their erase statements in its write.
 * A store serves one tenant: every kysely query goes through its TenantScope, and the hand-written ones
 * name the tenant (on PostgreSQL row-level security holds them to it as well). With a cipher, content is
 * sealed under each session's data key on its way in and opened on its way out (see encryption/).
 */
export class KyselyEventStore implements EventStore, SnapshotStore, ChangeFeed, MessageSearch {
  readonly #adapter: EngineAdapter;
  /** The adapter's database, confined to this store's tenant. */
  readonly #db: Kysely<StoreDatabase>;
  readonly #tenant: string;
  /** Whether appends write their messages' terms to the search index. */
  readonly #indexes: boolean;
  readonly #features: readonly StoreFeature[];
  readonly #changes: ChangeNotifier;
  /** What seals and opens content, when the store was opened with a keyring. */
  protected readonly cipher: ContentCipher | undefined;
  #closed = false;

  /**
   * The store of `tenant` (a checked tenant id) over `adapter`, whose database holds the tables of
   * `features` (migrated by the opener), encrypting content with `cipher` when given, indexing messages
   * for search unless `search` is false (an encrypting store never does).
   */
  constructor(
    adapter: EngineAdapter,
    features: readonly StoreFeature[],
    tenant: string,
    cipher: ContentCipher | undefined = undefined,
    search = true,
  ) {
    this.#adapter = adapter;
    this.#indexes = search && cipher === undefined;
    this.cipher = cipher;
    this.#tenant = tenant;
    this.#db = adapter.db.withPlugin(new TenantScope(tenant));
    this.#features = features;
    this.#changes = new ChangeNotifier(adapter.listen);
    grantAccess(this, {
      db: this.#db,
      tenant,
      dialect: adapter.dialect,
      writeGuarded: (guard, statements) => this.writeGuarded(guard, statements),
      writeLocked: (reads, plan) => this.writeLocked(reads, plan),
      rehearse: (statements) => guardStorage("rehearse", () => adapter.rehearse([], statements)),
      awaitVisible: (timeoutMs) => this.awaitVisible(timeoutMs),
      cipher,
    });
  }

  /** The tenant whose sessions this store reads and writes (chosen when it was opened). */
  get tenant(): string {
    return this.#tenant;
  }

  /** Which engine this store runs on. */
  get engine(): Engine {
    return this.#adapter.dialect.engine;
  }

  /** The checkpoint just after the last event `readAll` can return now: where a reader of only new events starts. */
  globalHead(): Promise<GlobalCheckpoint> {
    return guardRead("globalHead", () => this.#adapter.globalHead(this.#db));
  }

  /**
   * Waits until every commit made so far can be read by `readAll` (on PostgreSQL a commit stays hidden
   * while an older transaction is open), at most `timeoutMs`; false when some still could not.
   */
  awaitVisible(timeoutMs: number): Promise<boolean> {
    return guardStorage("awaitVisible", () => this.#adapter.awaitVisible(this.#db, timeoutMs));
  }

  /** Runs a compare-and-set and the writes it guards in one transaction; false (nothing written) when it missed. */
  writeGuarded(guard: CompiledQuery, statements: readonly CompiledQuery[]): Promise<boolean> {
    return guardStorage("writeGuarded", () => this.#adapter.writeGuarded(guard, statements));
  }

  /**
   * Runs `reads` and the writes `plan` decides from their rows in one transaction holding the lock the
   * first read takes (SQLite: the write lock; PostgreSQL: that read must be `FOR UPDATE`): see LockedWrite.
   */
  writeLocked<T>(reads: readonly CompiledQuery[], plan: (rows: ReadRows) => LockedPlan<T>): Promise<T> {
    return guardStorage("writeLocked", () => this.#adapter.writeLocked(reads, plan));
  }

  /**
   * Registers a listener called after each committed append: at once for this store's own; for other
   * processes', while there are listeners, through one LISTEN connection on PostgreSQL (not through
   * transaction-mode poolers) or a poll of the file every `sqlitePollMs` on SQLite. Wake-ups only: a
   * missed or repeated one is harmless to a reader of the log. Returns the listener's remover.
   */
  subscribe(listener: ChangeListener): () => void {
    return this.#changes.subscribe(listener);
  }

  /** While the started feed does not hear other processes yet, when it will; else undefined (see ChangeFeed). */
  listening(): Promise<void> | undefined {
    return this.#changes.listening();
  }

  /**
   * One write attempt: the batch, or the reason it was refused (see explainRejection). The store never
   * retries a conflict itself: the runtime's Session re-reads and decides again (one retry loop). A write
   * the server rolled back (a deadlock, a serialization failure) is made again: it wrote nothing.
   */
  async append(sessionId: string, events: readonly DomainEvent[], options: AppendOptions): Promise<AppendResult> {
    const prepared = prepareBatch(sessionId, events, options, this.#tenant, this.#indexes);
    return guardStorage("append", async () => {
      const batch = this.cipher === undefined ? prepared : await sealBatch(this.cipher, prepared);
      // A deadlock or serialization failure rolled the statement back: the same batch is written again.
      const written = await againOnDrop(() => this.#adapter.writeBatch(batch), undefined, wasRolledBack);
      if (written !== undefined) return this.#committed(batch, written);
      try {
        return await explainRejection(
          this.#db,
          batch,
          (id, fromSeq, toSeq) => this.readStream(id, { fromSeq, toSeq }),
          (id, keys) => this.knownKeys(id, keys),
        );
      } catch (error) {
        // Sealing made the erased session a key again (the keyring had none): nothing is sealed under it.
        if (error instanceof InvariantViolation && error.details.rule === "session-erased")
          await this.cipher?.destroy(sessionId);
        throw error;
      }
    });
  }

  /**
   * Warms the append path for a process's first appends: each of `appends` validated and prepared as
   * append does, then their statements run in one transaction that is rolled back (EngineAdapter.rehearse).
   * Writes nothing: no row, no change notification, no data key (an encrypting store runs the events'
   * skeletons, unsealed: no content). A StorageError when the database refuses (a read-only role, a
   * lock held): it only costs the saving.
   */
  warmUpAppends(appends: readonly WarmUpAppend[]): Promise<void> {
    return guardStorage("warmUpAppends", async () => {
      const batches = appends.map(({ sessionId, events, options }) => {
        const batch = prepareBatch(sessionId, events, options, this.#tenant, this.#indexes);
        if (this.cipher === undefined) return batch;
        const skeletons = batch.events.map((e) => ({ ...e, data: JSON.stringify(eventSkeleton(e.event).data) }));
        return { ...batch, events: skeletons };
      });
      await this.#adapter.rehearse(batches);
    });
  }

  knownKeys(sessionId: string, keys: readonly LogKey[]): Promise<Set<LogKey>> {
    return guardRead("knownKeys", async () => {
      checkId(sessionId, "sessionId");
      const known = new Set<LogKey>();
      const unique = [...new Set(keys)];
      for (let start = 0; start < unique.length; start += KEYS_PER_LOOKUP) {
        const slice = unique.slice(start, start + KEYS_PER_LOOKUP);
        const held = await this.#adapter.dialect.knownLogKeys(this.#db, this.#tenant, sessionId, slice);
        for (const key of held) known.add(key as LogKey);
      }
      return known;
    });
  }

  keyedBatch(sessionId: string, idempotencyKey: string): Promise<KeyedBatch | undefined> {
    return guardRead("keyedBatch", async () => {
      checkId(sessionId, "sessionId");
      checkId(idempotencyKey, "idempotencyKey");
      const row = await this.#db
        .selectFrom("idempotency_keys")
        .select(["first_seq", "last_seq"])
        .where("session_id", "=", sessionId)
        .where("idempotency_key", "=", idempotencyKey)
        .executeTakeFirst();
      return row === undefined ? undefined : { firstSeq: row.first_seq, lastSeq: row.last_seq };
    });
  }

  readStream(sessionId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    return guardRead("readStream", async () => {
      checkId(sessionId, "sessionId");
      const rows = await this.#db
        .selectFrom("events")
        .select(EVENT_COLUMNS)
        .where("session_id", "=", sessionId)
        .where("seq", ">=", options.fromSeq ?? 1)
        .$if(options.toSeq !== undefined, (qb) => qb.where("seq", "<=", options.toSeq ?? 0))
        .orderBy("seq")
        .execute();
      return this.#toEvents(rows);
    });
  }

  searchMessages(query: MessageSearchQuery): Promise<MessageSearchHit[]> {
    return guardRead("searchMessages", async () => {
      const checked = checkSearchQuery(query);
      // An encrypting store keeps no index (its terms would be content in the clear): it opens and scans.
      if (this.cipher !== undefined) return scanForTerms(await this.#messagesOf(checked.sessionIds), checked);
      const { rows } = await this.#adapter.dialect.searchRows({ ...checked, tenant: this.#tenant }).execute(this.#db);
      const events = await this.#toEvents(rows);
      return events.map((event, i) => ({ event, rank: Number(rows[i]?.rank ?? 0) }));
    });
  }

  compactionsOf(sessionIds: readonly string[]): Promise<StoredEvent[]> {
    return guardRead("compactionsOf", async () => {
      for (const [i, id] of sessionIds.entries()) checkId(id, `sessionIds[${i}]`);
      if (sessionIds.length === 0) return [];
      const rows = await this.#db
        .selectFrom("events")
        .select(EVENT_COLUMNS)
        .where("session_id", "in", sessionIds)
        // A literal, not a parameter, and no ORDER BY: so SQLite reads the partial index events_compactions
        // (it takes it only for a WHERE it can prove, and would scan by position to spare a sort).
        .where("type", "=", sql.lit("messages.superseded"))
        .execute();
      return this.#toEvents(rows.sort((a, b) => Number(a.position) - Number(b.position)));
    });
  }

  /** The `message.appended` events of `sessionIds`, opened. */
  async #messagesOf(sessionIds: readonly string[]): Promise<StoredEvent[]> {
    const rows = await this.#db
      .selectFrom("events")
      .select(EVENT_COLUMNS)
      .where("session_id", "in", [...new Set(sessionIds)])
      .where("type", "=", "message.appended")
      .orderBy("position")
      .execute();
    return this.#toEvents(rows);
  }

  readAll(options: ReadAllOptions = {}): Promise<GlobalPage> {
    return guardRead("readAll", async () => {
      const page = await this.#adapter.readGlobalLog(this.#db, options.after ?? "", options.limit);
      return { events: await this.#toEvents(page.rows, true), checkpoint: page.checkpoint };
    });
  }

  getSession(sessionId: string): Promise<SessionSummary | undefined> {
    return guardRead("getSession", async () => {
      checkId(sessionId, "sessionId");
      const row = await this.#db
        .selectFrom("sessions")
        .selectAll()
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      return row === undefined ? undefined : toSessionSummary(row);
    });
  }

  listSessions(): Promise<SessionSummary[]> {
    return guardRead("listSessions", async () => {
      const rows = await this.#db
        .selectFrom("sessions")
        .selectAll()
        .orderBy("created_at", "desc")
        .orderBy("session_id")
        .execute();
      return rows.map(toSessionSummary);
    });
  }

  /** The ids of the sessions named `name` (their source's external id), in id order; ValidationError for a non-id. */
  sessionsNamed(name: string): Promise<string[]> {
    return guardRead("sessionsNamed", () => sessionIdsNamed(this.#db, name));
  }

  /**
   * One page of the session catalogue, newest first (the order of listSessions): at most `limit` rows
   * read by index from just after the `after` cursor, so a page costs the same however many sessions
   * there are. ValidationError for a limit out of range or a cursor no page returned.
   */
  async listSessionPage(options: SessionPageOptions = {}): Promise<SessionPage> {
    const limit = sessionPageLimit(options.limit);
    const after = options.after === undefined ? undefined : decodeSessionCursor(options.after);
    return guardRead("listSessionPage", async () => {
      const rows = await this.#db
        .selectFrom("sessions")
        .selectAll()
        .$if(after !== undefined, (qb) =>
          // The `<=` bound lets both engines seek into the index instead of scanning it from the newest.
          qb
            .where("created_at", "<=", after?.createdAt ?? "")
            .where((eb) =>
              eb.or([eb("created_at", "<", after?.createdAt ?? ""), eb("session_id", ">", after?.sessionId ?? "")]),
            ),
        )
        .orderBy("created_at", "desc")
        .orderBy("session_id")
        .limit(limit + 1)
        .execute();
      const sessions = rows.slice(0, limit).map(toSessionSummary);
      const last = sessions.at(-1);
      return { sessions, next: rows.length > limit && last !== undefined ? encodeSessionCursor(last) : null };
    });
  }

  erase(sessionId: string, options: EraseOptions = {}): Promise<ErasureResult> {
    // Made again on a dropped connection (one transaction: it committed whole or not at all). Its
    // session.erased event's id is fixed before the first attempt, so a later one that finds the session
    // erased by it (its answer lost) reports `erased: true`, as that attempt would have.
    const erasureId = uuidv7();
    return guardWrite("erase", async () => {
      checkId(sessionId, "sessionId");
      checkEraseOptions(options);
      const db = this.#db;
      const dialect = this.#adapter.dialect;
      const session = db.selectFrom("sessions").selectAll().where("session_id", "=", sessionId);
      // The key first: from here on no copy of the content (WAL, replica, backup) can be read again. Only
      // a session that exists: one another process is creating keeps the key its first append seals under.
      if (this.cipher !== undefined && (await session.executeTakeFirst()) !== undefined)
        await this.cipher.destroy(sessionId);
      // Read and rewritten under the session's lock: an append waits, then finds the session erased.
      const reads = [
        dialect.lockRows(session).compile(),
        db.selectFrom("events").select(EVENT_COLUMNS).where("session_id", "=", sessionId).orderBy("seq").compile(),
      ];
      const result = await this.#adapter.writeErasure(reads, ([sessions, rows]) => {
        const row = sessions?.[0] as Selectable<SessionsTable> | undefined;
        if (row === undefined) throw new NotFoundError("session", sessionId);
        const events = (rows ?? []).map((r) => ({ stored: toSkeletonEvent(r as EventRow), row: r as EventRow }));
        if (row.erased_at !== null) {
          return {
            guard: undefined,
            statements: [],
            result: earlierErasure(events.at(-1)?.stored, sessionId, toIso(row.erased_at), erasureId),
          };
        }
        const plan = planErasure(db, dialect, this.#features, row, events, options, erasureId);
        return { guard: plan.guard, statements: plan.statements, result: plan.result };
      });
      // Again: an append that sealed meanwhile may have made the key again (what it wrote is erased now).
      await this.cipher?.destroy(sessionId);
      if (result.erased) this.#changes.notify({ sessionId, version: result.seq });
      return result;
    });
  }

  async purgeErased(options: PurgeOptions = {}): Promise<PurgeResult> {
    const waitTimeoutMs = checkPurgeOptions(options);
    return guardStorage("purgeErased", async () => {
      const start = performance.now();
      const { relations, waitedMs } = await this.#adapter.purgeFiles(contentTables(this.#features), waitTimeoutMs);
      return { relations, waitedMs, ms: tenths(performance.now() - start) };
    });
  }

  saveSnapshot(given: Snapshot): Promise<void> {
    // One statement that leaves the same row however often it runs: made again on a dropped connection.
    return guardWrite("saveSnapshot", async () => {
      const snapshot = this.cipher === undefined ? { ...given, sealed: null } : await sealSnapshot(this.cipher, given);
      const row = {
        session_id: snapshot.sessionId,
        seq: snapshot.seq,
        format: snapshot.format,
        state: snapshot.state,
        checksum: snapshot.checksum,
        sealed: snapshot.sealed,
      };
      // Never for an erased session: a handle that read its content before the erasure must not store it
      // again. The session's row is read held against an erasure (dialect.shareRows): one in progress holds
      // it, so the snapshot waits for its commit and then finds it erased, where an unlocked check would see
      // the row as it was and store the content after the erasure deleted it. An append does not wait for it.
      const db = this.#db;
      const adapter = this.#adapter;
      const written = await db
        .insertInto("snapshots")
        .columns(["session_id", "seq", "format", "state", "checksum", "sealed"])
        .expression(
          adapter.dialect.shareRows(
            db
              .selectFrom("sessions")
              .select([
                sql<string>`cast(${row.session_id} as text)`.as("session_id"),
                sql<number>`cast(${row.seq} as integer)`.as("seq"),
                sql<number>`cast(${row.format} as integer)`.as("format"),
                sql<string>`cast(${row.state} as text)`.as("state"),
                sql<string>`cast(${row.checksum} as text)`.as("checksum"),
                sql<Uint8Array | null>`cast(${row.sealed} as ${adapter.dialect.types.bytes})`.as("sealed"),
              ])
              .where("sessions.session_id", "=", row.session_id)
              .where("sessions.erased_at", "is", null),
          ),
        )
        // Never over a later one (another process's, written while this one was queued or made again).
        .onConflict((oc) =>
          oc
            .column("session_id")
            .doUpdateSet({
              seq: row.seq,
              format: row.format,
              state: row.state,
              checksum: row.checksum,
              sealed: row.sealed,
            })
            .where("snapshots.seq", "<=", row.seq),
        )
        .executeTakeFirst();
      if (this.cipher !== undefined && Number(written.numInsertedOrUpdatedRows ?? 0) === 0)
        await this.forgetKeyIfErased(given.sessionId);
    });
  }

  /**
   * After a write beside the log (a snapshot, a candidate) stored nothing on an encrypting store: when its
   * session is erased, sealing it made the session a data key again (the keyring had none), under which
   * nothing is sealed, so it is destroyed, as a refused append's is. A session the log does not hold keeps
   * its key: another process creating it may have made the one its first append seals under.
   */
  protected async forgetKeyIfErased(sessionId: string): Promise<void> {
    if ((await this.getSession(sessionId))?.erasedAt !== undefined) await this.cipher?.destroy(sessionId);
  }

  loadSnapshot(sessionId: string): Promise<Snapshot | undefined> {
    return guardRead("loadSnapshot", async () => {
      const row = await this.#db
        .selectFrom("snapshots")
        .select(["seq", "format", "state", "checksum"])
        .select(this.#adapter.dialect.bytesForRead("sealed").as("sealed"))
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const snapshot = { sessionId, seq: row.seq, format: row.format, state: row.state, checksum: row.checksum };
      if (this.cipher === undefined) return snapshot;
      return openSnapshot(this.cipher, { ...snapshot, sealed: bytesRead(row.sealed) });
    });
  }

  deleteSnapshot(sessionId: string): Promise<void> {
    return guardStorage("deleteSnapshot", async () => {
      await this.#db.deleteFrom("snapshots").where("session_id", "=", sessionId).execute();
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#changes.close();
    await guardStorage("close", () => this.#adapter.db.destroy());
  }

  /**
   * The stored events of `rows`, opened with their sessions' keys when the store encrypts; `global` (a
   * read across sessions) gives a session whose key an unfinished erasure destroyed as its skeleton.
   */
  #toEvents(rows: readonly EventRow[], global = false): Promise<StoredEvent[]> | StoredEvent[] {
    return this.cipher === undefined ? rows.map((row) => toStoredEvent(row)) : openEventRows(this.cipher, rows, global);
  }

  /** The append's result from the batch as validated and the positions it got; wakes subscribers. */
  #committed(batch: PreparedBatch, written: WrittenBatch): AppendResult {
    const events = storedEventsOf(batch, written.version, written.positions);
    this.#changes.notify({ sessionId: batch.sessionId, version: written.version });
    return { nextExpectedVersion: written.version, events, replayed: false };
  }
}

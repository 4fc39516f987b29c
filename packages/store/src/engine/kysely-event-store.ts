import type {
  AppendOptions,
  AppendResult,
  ChangeFeed,
  ChangeListener,
  DomainEvent,
  EventStore,
  ReadAllOptions,
  ReadStreamOptions,
  SessionSummary,
  Snapshot,
  SnapshotStore,
  StoredEvent,
} from "@palimpsest/core";
import { StorageError } from "@palimpsest/core";
import { type PreparedBatch, prepareBatch } from "./append-batch.ts";
import { explainRejection } from "./append-rejection.ts";
import { ChangeNotifier } from "./change-notifier.ts";
import type { Engine, EngineAdapter, WrittenRow } from "./engine-adapter.ts";
import { EVENT_COLUMNS, toSessionSummary, toStoredEvent } from "./row-mapping.ts";
import { guardStorage } from "./storage-guard.ts";

/** Write attempts per append when the stream moves between a rejected write and its explanation. */
const MAX_ATTEMPTS = 5;

/**
 * The one EventStore and SnapshotStore implementation: shared kysely queries over an engine adapter
 * (PostgreSQL or SQLite). Every database error surfaces as a StorageError with its cause.
 */
export class KyselyEventStore implements EventStore, SnapshotStore, ChangeFeed {
  readonly #adapter: EngineAdapter;
  readonly #changes = new ChangeNotifier();
  #closed = false;

  constructor(adapter: EngineAdapter) {
    this.#adapter = adapter;
  }

  /** Which engine this store runs on. */
  get engine(): Engine {
    return this.#adapter.engine;
  }

  /** Registers a listener called after each committed append (in this process); returns its remover. */
  subscribe(listener: ChangeListener): () => void {
    return this.#changes.subscribe(listener);
  }

  async append(sessionId: string, events: readonly DomainEvent[], options: AppendOptions): Promise<AppendResult> {
    const batch = prepareBatch(sessionId, events, options);
    return guardStorage("append", async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const written = await this.#adapter.writeBatch(batch);
        if (written !== undefined) return this.#committed(batch, written);
        const replay = await explainRejection(this.#adapter.db, batch, (id, fromSeq, toSeq) =>
          this.readStream(id, { fromSeq, toSeq }),
        );
        if (replay !== undefined) return replay;
      }
      throw new StorageError("append", `session ${sessionId} kept moving; gave up after ${MAX_ATTEMPTS} attempts`);
    });
  }

  readStream(sessionId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    return guardStorage("readStream", async () => {
      const rows = await this.#adapter.db
        .selectFrom("events")
        .select(EVENT_COLUMNS)
        .where("session_id", "=", sessionId)
        .where("seq", ">=", options.fromSeq ?? 1)
        .$if(options.toSeq !== undefined, (qb) => qb.where("seq", "<=", options.toSeq ?? 0))
        .orderBy("seq")
        .execute();
      return rows.map(toStoredEvent);
    });
  }

  readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const barrier = this.#adapter.visibilityBarrier;
    return guardStorage("readAll", async () => {
      const rows = await this.#adapter.db
        .selectFrom("events")
        .select(EVENT_COLUMNS)
        .where("position", ">", options.after ?? 0)
        .$if(barrier !== undefined, (qb) => (barrier === undefined ? qb : qb.where(barrier)))
        .orderBy("position")
        .$if(options.limit !== undefined, (qb) => qb.limit(options.limit ?? 0))
        .execute();
      return rows.map(toStoredEvent);
    });
  }

  getSession(sessionId: string): Promise<SessionSummary | undefined> {
    return guardStorage("getSession", async () => {
      const row = await this.#adapter.db
        .selectFrom("sessions")
        .selectAll()
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      return row === undefined ? undefined : toSessionSummary(row);
    });
  }

  listSessions(): Promise<SessionSummary[]> {
    return guardStorage("listSessions", async () => {
      const rows = await this.#adapter.db
        .selectFrom("sessions")
        .selectAll()
        .orderBy("created_at", "desc")
        .orderBy("session_id")
        .execute();
      return rows.map(toSessionSummary);
    });
  }

  saveSnapshot(snapshot: Snapshot): Promise<void> {
    const row = {
      session_id: snapshot.sessionId,
      seq: snapshot.seq,
      format: snapshot.format,
      state: snapshot.state,
      checksum: snapshot.checksum,
    };
    return guardStorage("saveSnapshot", async () => {
      await this.#adapter.db
        .insertInto("snapshots")
        .values(row)
        .onConflict((oc) =>
          oc
            .column("session_id")
            .doUpdateSet({ seq: row.seq, format: row.format, state: row.state, checksum: row.checksum }),
        )
        .execute();
    });
  }

  loadSnapshot(sessionId: string): Promise<Snapshot | undefined> {
    return guardStorage("loadSnapshot", async () => {
      const row = await this.#adapter.db
        .selectFrom("snapshots")
        .selectAll()
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return { sessionId, seq: row.seq, format: row.format, state: row.state, checksum: row.checksum };
    });
  }

  deleteSnapshot(sessionId: string): Promise<void> {
    return guardStorage("deleteSnapshot", async () => {
      await this.#adapter.db.deleteFrom("snapshots").where("session_id", "=", sessionId).execute();
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await guardStorage("close", () => this.#adapter.db.destroy());
  }

  /** Builds the append's result from the batch and the rows it wrote, then wakes subscribers. */
  #committed(batch: PreparedBatch, written: WrittenRow[]): AppendResult {
    const byId = new Map(written.map((row) => [row.event_id, row]));
    const events = batch.events.map((event) => {
      const row = byId.get(event.eventId);
      if (row === undefined) throw new StorageError("append", `event ${event.eventId} was not returned by the insert`);
      return toStoredEvent({
        position: row.position,
        event_id: event.eventId,
        session_id: batch.sessionId,
        seq: row.seq,
        type: event.type,
        schema_version: event.schemaVersion,
        occurred_at: batch.occurredAt,
        causation_id: batch.causationId,
        correlation_id: batch.correlationId,
        idempotency_key: batch.idempotencyKey,
        tenant_id: batch.tenantId,
        data: event.data,
      });
    });
    const version = events.at(-1)?.seq ?? 0;
    this.#changes.notify({ sessionId: batch.sessionId, version });
    return { nextExpectedVersion: version, events, replayed: false };
  }
}

import {
  type AppendResult,
  type EraseOptions,
  type ErasureResult,
  NotFoundError,
  type Snapshot,
  type StoreChange,
  type StoredEvent,
} from "@palimpsest/core";
import type { Selectable } from "kysely";
import type { CandidateRow } from "../candidate-store/candidate-row.ts";
import { type PreparedBatch, storedEventsOf } from "../engine/append-batch.ts";
import { refusalOf, type UsedKey } from "../engine/append-refusal.ts";
import type { ChangeNotifier } from "../engine/change-notifier.ts";
import type { SessionsTable } from "../engine/database-schema.ts";
import { earlierErasure, erasedEventRow, erasureOutcome } from "../engine/erasure-outcome.ts";
import { type EventRow, toStoredEvent } from "../engine/row-mapping.ts";
import type { HandoffRow } from "../handoff/handoff-record.ts";
import { ERASED_FAILURE, erasedOpenFields } from "../handoff/handoff-rules.ts";

/** A session's catalogue row, as the SQL engines keep it (times as ISO text). */
type SessionRow = Selectable<SessionsTable> & { created_at: string; updated_at: string; erased_at: string | null };

/** Everything the log keeps of one session. */
interface MemorySession {
  row: SessionRow;
  /** Its events in seq order (the same row objects as in the global log). */
  events: EventRow[];
  /** The log keys its events hold (core's log-keys.ts). */
  keys: Set<string>;
  /** The idempotency keys its appends used. */
  used: Map<string, UsedKey>;
}

/**
 * The data of a memory store, shared by every handle `connect` opens on it: the sessions, the global log
 * (position = index + 1, so commit order is position order, as on SQLite), snapshots, pre-compaction
 * candidates and hand-offs, and each open handle's change notifier. Appends and erasures take turns (one
 * writer at a time, like SQLite's write lock); everything else reads or changes plain data in one step.
 */
export class MemoryLog {
  /** Each session's catalogue row, events, log keys and used idempotency keys, by id. */
  readonly sessions = new Map<string, MemorySession>();
  /** The global log: the event at position p is `events[p - 1]`. */
  readonly events: EventRow[] = [];
  /** The latest snapshot of each session (also of a session without events, as the SQL stores keep it). */
  readonly snapshots = new Map<string, Snapshot>();
  /** The pre-compaction candidate of each session, as its row (so it reads back as from a database). */
  readonly candidates = new Map<string, CandidateRow>();
  /** The hand-off queue's rows, by hand-off id. */
  readonly handoffs = new Map<string, HandoffRow>();
  /** The change notifier of each open store on this data. */
  readonly notifiers = new Set<ChangeNotifier>();
  /** The last write queued: the next waits for it. */
  #turn: Promise<unknown> = Promise.resolve();

  /** Runs `write` after every write queued before it, and before any queued after it. */
  #exclusive<T>(write: () => Promise<T>): Promise<T> {
    const result = this.#turn.then(write);
    this.#turn = result.catch(() => {});
    return result;
  }

  /** Tells every open handle's listeners, as every process hears a commit. */
  #notify(change: StoreChange): void {
    for (const notifier of this.notifiers) notifier.notify(change);
  }

  /** Writes a validated batch, or refuses it exactly as the SQL engines do (see refusalOf). */
  append(batch: PreparedBatch): Promise<AppendResult> {
    return this.#exclusive(async () => {
      const session = this.sessions.get(batch.sessionId);
      const refusal = await refusalOf(batch, {
        erased: () => session?.row.erased_at != null,
        usedKey: (key) => session?.used.get(key),
        versions: () => session && { version: session.row.version, viewVersion: session.row.view_version },
        readRange: (fromSeq, toSeq) => this.read(batch.sessionId, fromSeq, toSeq),
        knownKeys: (keys) => new Set(keys.filter((key) => session?.keys.has(key))),
      });
      if (refusal !== undefined) return refusal;
      return this.#write(batch, session ?? this.#created(batch));
    });
  }

  /** A new session's catalogue entry, for the batch that starts it. */
  #created(batch: PreparedBatch): MemorySession {
    const row: SessionRow = {
      session_id: batch.sessionId,
      version: 0,
      view_version: 0,
      created_at: batch.recordedAt,
      updated_at: batch.recordedAt,
      tenant_id: batch.tenantId,
      erased_at: null,
      name: batch.name,
    };
    const session = { row, events: [], keys: new Set<string>(), used: new Map<string, UsedKey>() };
    this.sessions.set(batch.sessionId, session);
    return session;
  }

  /** Writes the batch at the session's next seqs and the log's next positions; wakes every store's listeners. */
  #write(batch: PreparedBatch, session: MemorySession): AppendResult {
    const { row } = session;
    const version = row.version + batch.events.length;
    const positions = batch.events.map((prepared, i) => {
      const event: EventRow = {
        position: this.events.length + 1,
        event_id: prepared.eventId,
        session_id: batch.sessionId,
        seq: row.version + i + 1,
        type: prepared.event.type,
        schema_version: prepared.schemaVersion,
        occurred_at: prepared.occurredAt,
        causation_id: batch.causationId,
        correlation_id: batch.correlationId,
        idempotency_key: batch.idempotencyKey,
        tenant_id: batch.tenantId,
        data: prepared.data,
        recorded_at: batch.recordedAt,
      };
      this.events.push(event);
      session.events.push(event);
      return event.position;
    });
    if (batch.idempotencyKey !== null && batch.contentHash !== null) {
      session.used.set(batch.idempotencyKey, {
        contentHash: batch.contentHash,
        firstSeq: row.version + 1,
        lastSeq: version,
      });
    }
    for (const key of batch.keys) session.keys.add(key);
    if (batch.expectedViewVersion !== undefined) row.view_version = batch.expectedViewVersion + batch.viewSteps;
    row.version = version;
    row.updated_at = batch.recordedAt;
    this.#notify({ sessionId: batch.sessionId, version });
    return { nextExpectedVersion: version, events: storedEventsOf(batch, version, positions), replayed: false };
  }

  /** The session's events `fromSeq..toSeq`, read back as a database row would be (parsed and upcast). */
  read(sessionId: string, fromSeq = 1, toSeq = Number.POSITIVE_INFINITY): StoredEvent[] {
    const events = this.sessions.get(sessionId)?.events ?? [];
    return events.filter((e) => e.seq >= fromSeq && e.seq <= toSeq).map((row) => toStoredEvent(row));
  }

  /**
   * Erases a session as the SQL engines do (erase-session.ts): its events become their skeletons, a
   * session.erased event follows them, its snapshot, candidate, idempotency and log keys go, its hand-offs
   * lose their texts and the open ones whose completion has not begun fail.
   */
  erase(sessionId: string, options: EraseOptions): Promise<ErasureResult> {
    return this.#exclusive(async () => {
      const session = this.sessions.get(sessionId);
      if (session === undefined) throw new NotFoundError("session", sessionId);
      const { row } = session;
      const events = session.events.map((event) => ({ stored: toStoredEvent(event), row: event }));
      if (row.erased_at !== null) return earlierErasure(events.at(-1)?.stored, sessionId, row.erased_at);
      const now = new Date().toISOString();
      const { rewrites, erased, result } = erasureOutcome(sessionId, row.version, events, options, now);
      for (const rewrite of rewrites) {
        const event = session.events[rewrite.seq - 1];
        if (event !== undefined) Object.assign(event, { data: rewrite.data, schema_version: rewrite.version });
      }
      const { content_hash: _, ...erasedRow } = erasedEventRow(sessionId, result.seq, row.tenant_id, erased, now);
      const event: EventRow = { ...erasedRow, position: this.events.length + 1 };
      this.events.push(event);
      session.events.push(event);
      Object.assign(row, { version: result.seq, updated_at: now, erased_at: now });
      session.used.clear();
      session.keys.clear();
      this.snapshots.delete(sessionId);
      this.candidates.delete(sessionId);
      for (const handoff of this.handoffs.values()) {
        if (handoff.source_session_id === sessionId) eraseHandoff(handoff, Date.parse(now));
      }
      this.#notify({ sessionId, version: result.seq });
      return result;
    });
  }

  /**
   * Stores a session's snapshot, never an erased session's (a handle that read it before must not write it
   * back), nor over one of a later seq.
   */
  saveSnapshot(snapshot: Snapshot): void {
    const session = this.sessions.get(snapshot.sessionId)?.row;
    if (session === undefined || session.erased_at !== null) return;
    if ((this.snapshots.get(snapshot.sessionId)?.seq ?? 0) > snapshot.seq) return;
    this.snapshots.set(snapshot.sessionId, { ...snapshot });
  }

  /** Stores a candidate while its basis is the session's view version (an erased session has none). */
  saveCandidate(row: CandidateRow): boolean {
    const session = this.sessions.get(row.session_id)?.row;
    if (session === undefined || session.erased_at !== null || session.view_version !== row.basis_view_version) {
      return false;
    }
    this.candidates.set(row.session_id, row);
    return true;
  }
}

/** A hand-off of an erased source, as handoffFeature's erase statements leave it. */
function eraseHandoff(row: HandoffRow, nowMs: number): void {
  row.reason = null;
  if (row.failure_reason !== null) row.failure_reason = ERASED_FAILURE;
  const open = row.status === "pending" || row.status === "claimed";
  if (open && row.completion_started_at_ms === null) Object.assign(row, erasedOpenFields(nowMs));
}

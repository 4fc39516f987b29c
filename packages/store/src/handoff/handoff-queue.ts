import {
  ClaimLost,
  type ClaimOptions,
  type Clock,
  type Finish,
  type Handoff,
  type HandoffClaim,
  type HandoffClaimRef,
  type HandoffQueuePort,
  type HandoffRecord,
  type HandoffStatus,
  type NewHandoff,
  NotFoundError,
} from "@palimpsest/core";
import { type Kysely, type RawBuilder, sql, type UpdateObject } from "kysely";
import { uuidv7 } from "uuidv7";
import type { StoreDatabase } from "../engine/database-schema.ts";
import type { Dialect } from "../engine/dialect.ts";
import { guardStorage } from "../engine/storage-guard.ts";
import { OPEN_STATUSES } from "./handoff-migration.ts";
import { type HandoffRow, toClaim, toHandoff, toRecord } from "./handoff-record.ts";
import {
  checkClaimOptions,
  checkLease,
  checkNewHandoff,
  fenceRefusal,
  finishedFields,
  handoffOpen,
  pendingRow,
  repeatsFinish,
} from "./handoff-rules.ts";
import type { HandoffTables } from "./handoff-table.ts";
import { leaseEnd, nowSql } from "./handoff-time.ts";

/** The log's tables and the queue's. */
type HandoffDatabase = StoreDatabase & HandoffTables;

/**
 * The hand-off queue's SQL, shared by the engines. Claiming is one UPDATE whose subquery picks the
 * oldest claimable row, locked skipping the rows others hold where the dialect can (claimSkipLocked): on PostgreSQL `FOR UPDATE SKIP LOCKED`, so concurrent claimers never take the
 * same row; on SQLite the write statement holds the database's write lock from before it reads (as
 * BEGIN IMMEDIATE does), so the choice and the claim are one step. Every later transition is an UPDATE
 * fenced by the claim token and an unexpired lease, but marking completed a hand-off already sealed (see
 * markCompleted). Times come from the database's clock, or `clock`.
 */
export class HandoffQueue implements HandoffQueuePort {
  readonly #db: Kysely<HandoffDatabase>;
  readonly #dialect: Dialect;
  readonly #clock: Clock | undefined;

  /** Wraps the store's database; `clock` replaces the database's clock (for tests of lease expiry). */
  constructor(db: Kysely<HandoffDatabase>, dialect: Dialect, clock?: Clock) {
    this.#db = db;
    this.#dialect = dialect;
    this.#clock = clock;
  }

  /** The same queue reading time from `clock` instead of the database. */
  withClock(clock: Clock): HandoffQueue {
    return new HandoffQueue(this.#db, this.#dialect, clock);
  }

  /**
   * Adds a pending hand-off; InvariantViolation `handoff-open` when its source already has an open one,
   * ValidationError for a successor id or target longer than its limit (ID_LIMITS), before anything is written.
   */
  async insert(input: NewHandoff): Promise<Handoff> {
    checkNewHandoff(input);
    return guardStorage("requestHandoff", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      const row = await this.#db
        .insertInto("handoffs")
        .values(pendingRow(input, now))
        .onConflict((oc) => oc.column("source_session_id").where(OPEN_STATUSES).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (row !== undefined) return toHandoff(row);
      throw handoffOpen(input.sourceSessionId, await this.list({ sourceSessionId: input.sourceSessionId, open: true }));
    });
  }

  /** Claims the oldest pending (or lease-expired) hand-off for `claimant`; undefined when none is claimable. */
  async claim(options: ClaimOptions): Promise<HandoffClaim | undefined> {
    checkClaimOptions(options);
    return guardStorage("claimHandoff", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      // Walks the open rows oldest first through a partial index (handoffs_open_order, or
      // handoffs_open_target_order with a target): no sort of every pending row per claim.
      const next = this.#db
        .selectFrom("handoffs")
        .select("handoff_id")
        .where(OPEN_STATUSES)
        .where((eb) => eb.or([eb("status", "=", "pending"), eb("lease_expires_at_ms", "<=", now)]))
        .$if(options.target !== undefined, (qb) => qb.where("target", "=", options.target ?? ""))
        .orderBy("created_at_ms")
        .orderBy("handoff_id")
        .limit(1)
        .$call((qb) => this.#dialect.claimSkipLocked(qb));
      const row = await this.#db
        .updateTable("handoffs")
        .set((eb) => ({
          status: "claimed",
          claimed_by: options.claimant,
          claim_token: uuidv7(),
          attempts: eb("attempts", "+", 1),
          lease_expires_at_ms: leaseEnd(now, options.leaseMs),
          updated_at_ms: now,
        }))
        .where("handoff_id", "=", next)
        .returningAll()
        .executeTakeFirst();
      return row === undefined ? undefined : toClaim(row);
    });
  }

  /** Extends a claim's lease to `leaseMs` from now; ClaimLost when the claim no longer holds. */
  async renew(claim: HandoffClaimRef, leaseMs: number): Promise<HandoffClaim> {
    checkLease(leaseMs);
    return guardStorage("renewHandoff", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      const row = await this.#fenced(claim, now, { lease_expires_at_ms: leaseEnd(now, leaseMs), updated_at_ms: now });
      return toClaim(row);
    });
  }

  /** Fails with ClaimLost (or NotFoundError) unless the claim still holds; changes nothing but `updated_at`. */
  check(claim: HandoffClaimRef): Promise<HandoffClaim> {
    return guardStorage("checkHandoffClaim", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      return toClaim(await this.#fenced(claim, now, { updated_at_ms: now }));
    });
  }

  /**
   * Records, under the claim, that a completion began: from then on the hand-off can only complete
   * (`finish` refuses to fail it unless told the source went elsewhere). Idempotent for its claim.
   */
  startCompletion(claim: HandoffClaimRef): Promise<Handoff> {
    return guardStorage("startHandoffCompletion", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      const row = await this.#fenced(claim, now, {
        completion_started_at_ms: sql<number>`coalesce(completion_started_at_ms, ${now})`,
        updated_at_ms: now,
      });
      return toHandoff(row);
    });
  }

  /**
   * Ends a claimed hand-off if the claim still holds; repeating the same end with the same claim returns
   * the row. Failing one whose completion began throws InvariantViolation `handoff-completing`, in the
   * same statement that would fail it, unless `evenIfCompleting` (the hand-off can no longer complete:
   * the source went to another successor, or the successor id can never be started).
   */
  finish(claim: HandoffClaimRef, end: Finish, evenIfCompleting = false): Promise<Handoff> {
    return guardStorage("finishHandoff", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      const failing = end.status === "failed";
      try {
        return toHandoff(await this.#fenced(claim, now, finishedFields(end, now), failing && !evenIfCompleting));
      } catch (error) {
        if (!(error instanceof ClaimLost)) throw error;
        const current = await this.#row(claim.handoffId);
        if (repeatsFinish(current, claim, end)) return toHandoff(current);
        throw error;
      }
    });
  }

  /**
   * Marks completed a claimed hand-off whose completion began, under any claim and lease: call it only
   * once the source is sealed to this row's successor, when completed is the only correct end. Returns
   * the row (also when it was already completed); ClaimLost `not-claimed` when it ended otherwise.
   */
  markCompleted(handoffId: string): Promise<Handoff> {
    return guardStorage("completeHandoff", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      const row = await this.#db
        .updateTable("handoffs")
        .set({ status: "completed", failure_reason: null, lease_expires_at_ms: null, updated_at_ms: now })
        .where("handoff_id", "=", handoffId)
        .where("status", "=", "claimed")
        .where("completion_started_at_ms", "is not", null)
        .returningAll()
        .executeTakeFirst();
      if (row !== undefined) return toHandoff(row);
      const current = await this.#row(handoffId);
      if (current.status === "completed") return toHandoff(current);
      throw new ClaimLost(handoffId, "not-claimed", current.status);
    });
  }

  /**
   * Fails an open hand-off whose completion has not begun, whoever holds it (a request that found its
   * source sealed by another hand-off); undefined when it is no longer open or its completion began.
   */
  cancel(handoffId: string, failureReason: string): Promise<Handoff | undefined> {
    return guardStorage("cancelHandoff", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      const row = await this.#db
        .updateTable("handoffs")
        .set({ status: "failed", failure_reason: failureReason, lease_expires_at_ms: null, updated_at_ms: now })
        .where("handoff_id", "=", handoffId)
        .where(OPEN_STATUSES)
        .where("completion_started_at_ms", "is", null)
        .returningAll()
        .executeTakeFirst();
      return row === undefined ? undefined : toHandoff(row);
    });
  }

  /** One hand-off with its claim token (NotFoundError when there is none); the token never leaves the runtime. */
  async read(handoffId: string): Promise<HandoffRecord> {
    return toRecord(await this.#row(handoffId));
  }

  /** One row of the queue; NotFoundError when there is none. */
  #row(handoffId: string): Promise<HandoffRow> {
    return guardStorage("getHandoff", async () => {
      const row = await this.#db
        .selectFrom("handoffs")
        .selectAll()
        .where("handoff_id", "=", handoffId)
        .executeTakeFirst();
      if (row === undefined) throw new NotFoundError("handoff", handoffId);
      return row;
    });
  }

  /** Hand-offs oldest first, optionally of one status, one source session, or only the open ones. */
  list(filter: { status?: HandoffStatus; sourceSessionId?: string; open?: boolean } = {}): Promise<Handoff[]> {
    return guardStorage("listHandoffs", async () => {
      const rows = await this.#db
        .selectFrom("handoffs")
        .selectAll()
        .$if(filter.status !== undefined, (qb) => qb.where("status", "=", filter.status ?? "pending"))
        .$if(filter.sourceSessionId !== undefined, (qb) =>
          qb.where("source_session_id", "=", filter.sourceSessionId ?? ""),
        )
        .$if(filter.open === true, (qb) => qb.where(OPEN_STATUSES))
        .orderBy("created_at_ms")
        .orderBy("handoff_id")
        .execute();
      return rows.map(toHandoff);
    });
  }

  /**
   * Runs one update fenced by the claim: the row must be claimed, hold this token, and have an unexpired
   * lease (and, when `notCompleting`, no completion begun). When it does not, reads the row to say why
   * (NotFoundError, ClaimLost, or InvariantViolation `handoff-completing`); nothing was changed.
   */
  async #fenced(
    claim: HandoffClaimRef,
    now: RawBuilder<number>,
    set: UpdateObject<HandoffDatabase, "handoffs">,
    notCompleting = false,
  ): Promise<HandoffRow> {
    const row = await this.#db
      .updateTable("handoffs")
      .set(set)
      .where("handoff_id", "=", claim.handoffId)
      .where("status", "=", "claimed")
      .where("claim_token", "=", claim.token)
      .where("lease_expires_at_ms", ">", now)
      .$if(notCompleting, (qb) => qb.where("completion_started_at_ms", "is", null))
      .returningAll()
      .executeTakeFirst();
    if (row !== undefined) return row;
    throw fenceRefusal(await this.#row(claim.handoffId), claim, notCompleting);
  }
}

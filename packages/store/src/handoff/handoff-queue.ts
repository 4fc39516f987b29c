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
  sessionErased,
} from "@palimpsest/core";
import { type Kysely, type RawBuilder, sql, type UpdateObject } from "kysely";
import { uuidv7 } from "uuidv7";
import type { StoreDatabase } from "../engine/database-schema.ts";
import type { Dialect } from "../engine/dialect.ts";
import { guardRead, guardWrite } from "../engine/storage-guard.ts";
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
  startedUnder,
} from "./handoff-rules.ts";
import type { HandoffTables } from "./handoff-table.ts";
import { leaseEnd, nowSql } from "./handoff-time.ts";

/** The log's tables and the queue's. */
type HandoffDatabase = StoreDatabase & HandoffTables;

/**
 * A new request's columns, each with the type its value is cast to (an INSERT … SELECT gives a parameter
 * none; both engines take these names). A request is inserted from a SELECT that first reads its source's
 * row held against an erasure (`dialect.shareRows`) and requires it not erased: an erasure holds that row
 * from its first statement, so a request racing it waits and then finds the source erased. An unlocked check would see the
 * row as last committed and insert the request's reason (content) after the erasure scrubbed the session's
 * hand-offs. A source the log does not hold is not refused (the queue takes any session id).
 */
const PENDING_TYPES = {
  handoff_id: "text",
  source_session_id: "text",
  successor_session_id: "text",
  status: "text",
  target: "text",
  reason: "text",
  claimed_by: "text",
  claim_token: "text",
  attempts: "integer",
  lease_expires_at_ms: "bigint",
  failure_reason: "text",
  completion_started_at_ms: "bigint",
  created_at_ms: "bigint",
  updated_at_ms: "bigint",
} as const satisfies Record<keyof ReturnType<typeof pendingRow<unknown>>, string>;

type PendingColumn = keyof typeof PENDING_TYPES;
const PENDING_COLUMNS = Object.keys(PENDING_TYPES) as PendingColumn[];

/**
 * The hand-off queue's SQL, shared by the engines. Claiming is one UPDATE whose subquery picks the
 * oldest claimable row, locked skipping the rows others hold where the dialect can (claimSkipLocked): on PostgreSQL `FOR UPDATE SKIP LOCKED`, so concurrent claimers never take the
 * same row; on SQLite the write statement holds the database's write lock from before it reads (as
 * BEGIN IMMEDIATE does), so the choice and the claim are one step. Every later transition is an UPDATE
 * fenced by the claim token and an unexpired lease, but marking completed a hand-off already sealed (see
 * markCompleted). Times come from the database's clock, or `clock`.
 *
 * A dropped connection is the queue's to retry, not the caller's (guardRead, guardWrite): a read is made
 * again; so is a write, which may have committed with its answer lost. A request's row id and a claim's
 * token are fixed before the first attempt, so a later one finds the row the lost attempt stored and
 * returns it; every other transition is one fenced UPDATE whose repetition leaves the row as it was (a
 * renewal or check sets the same lease or time again, a completion's start keeps its first time) or is
 * recognised as the same end (finish, markCompleted, cancel).
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
    const handoffId = uuidv7(); // every attempt's: a later one finds the row of an attempt whose answer was lost
    return guardWrite("requestHandoff", async (again) => {
      const landed = again ? await this.#find(handoffId) : undefined;
      if (landed !== undefined) return toHandoff(landed);
      const now = nowSql(this.#dialect, this.#clock);
      const pending: Record<PendingColumn, unknown> = { ...pendingRow(input, now), handoff_id: handoffId };
      // The source's row, held against an erasure: one in progress is waited for, then seen (see PENDING_TYPES).
      const source = this.#dialect.shareRows(
        this.#db.selectFrom("sessions").select("erased_at").where("session_id", "=", input.sourceSessionId),
      );
      const row = await this.#db
        .with("source", () => source)
        .insertInto("handoffs")
        .columns(PENDING_COLUMNS)
        .expression(
          this.#db
            .selectNoFrom(PENDING_COLUMNS.map((c) => sql`cast(${pending[c]} as ${sql.raw(PENDING_TYPES[c])})`.as(c)))
            .where(sql<boolean>`not exists (select 1 from source where erased_at is not null)`),
        )
        .onConflict((oc) => oc.column("source_session_id").where(OPEN_STATUSES).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (row !== undefined) return toHandoff(row);
      if (await this.#erased(input.sourceSessionId)) throw sessionErased(input.sourceSessionId);
      const open = await this.#rows({ sourceSessionId: input.sourceSessionId, open: true });
      // The open one is this request's own when an earlier attempt committed after this one looked for it.
      const own = open.find((h) => h.handoff_id === handoffId);
      if (own !== undefined) return toHandoff(own);
      throw handoffOpen(input.sourceSessionId, open.map(toHandoff));
    });
  }

  /** Claims the oldest pending (or lease-expired) hand-off for `claimant`; undefined when none is claimable. */
  async claim(options: ClaimOptions): Promise<HandoffClaim | undefined> {
    checkClaimOptions(options);
    const token = uuidv7(); // every attempt's: a later one finds the claim an attempt whose answer was lost took
    return guardWrite("claimHandoff", async (again) => {
      const now = nowSql(this.#dialect, this.#clock);
      const landed = again ? await this.#claimed(token, now) : undefined;
      if (landed !== undefined) return toClaim(landed);
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
          claim_token: token,
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
    return guardWrite("renewHandoff", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      const row = await this.#fenced(claim, now, { lease_expires_at_ms: leaseEnd(now, leaseMs), updated_at_ms: now });
      return toClaim(row);
    });
  }

  /** Fails with ClaimLost (or NotFoundError) unless the claim still holds; changes nothing but `updated_at`. */
  check(claim: HandoffClaimRef): Promise<HandoffClaim> {
    return guardWrite("checkHandoffClaim", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      return toClaim(await this.#fenced(claim, now, { updated_at_ms: now }));
    });
  }

  /**
   * Records, under the claim, that a completion began: from then on the hand-off can only complete
   * (`finish` refuses to fail it unless told the source went elsewhere). Idempotent for its claim; made
   * again after a lost answer, it also returns the row when the lease ran out since that attempt began it.
   */
  startCompletion(claim: HandoffClaimRef): Promise<Handoff> {
    return guardWrite("startHandoffCompletion", async (again) => {
      const now = nowSql(this.#dialect, this.#clock);
      try {
        const row = await this.#fenced(claim, now, {
          completion_started_at_ms: sql<number>`coalesce(completion_started_at_ms, ${now})`,
          updated_at_ms: now,
        });
        return toHandoff(row);
      } catch (error) {
        const current = again && error instanceof ClaimLost ? await this.#find(claim.handoffId) : undefined;
        if (current !== undefined && startedUnder(current, claim)) return toHandoff(current);
        throw error;
      }
    });
  }

  /**
   * Ends a claimed hand-off if the claim still holds; repeating the same end with the same claim returns
   * the row. Failing one whose completion began throws InvariantViolation `handoff-completing`, in the
   * same statement that would fail it, unless `evenIfCompleting` (the hand-off can no longer complete:
   * the source went to another successor, or the successor id can never be started).
   */
  finish(claim: HandoffClaimRef, end: Finish, evenIfCompleting = false): Promise<Handoff> {
    return guardWrite("finishHandoff", async () => {
      const now = nowSql(this.#dialect, this.#clock);
      const failing = end.status === "failed";
      try {
        return toHandoff(await this.#fenced(claim, now, finishedFields(end, now), failing && !evenIfCompleting));
      } catch (error) {
        if (!(error instanceof ClaimLost)) throw error;
        const current = await this.#find(claim.handoffId);
        if (current !== undefined && repeatsFinish(current, claim, end)) return toHandoff(current);
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
    return guardWrite("completeHandoff", async () => {
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
      const current = await this.#find(handoffId);
      if (current === undefined) throw new NotFoundError("handoff", handoffId);
      if (current.status === "completed") return toHandoff(current);
      throw new ClaimLost(handoffId, "not-claimed", current.status);
    });
  }

  /**
   * Fails an open hand-off whose completion has not begun, whoever holds it (a request that found its
   * source sealed by another hand-off); undefined when it is no longer open or its completion began. Made
   * again after a lost answer, it returns the row that attempt failed (failed with this very text).
   */
  cancel(handoffId: string, failureReason: string): Promise<Handoff | undefined> {
    return guardWrite("cancelHandoff", async (again) => {
      const now = nowSql(this.#dialect, this.#clock);
      const row = await this.#db
        .updateTable("handoffs")
        .set({ status: "failed", failure_reason: failureReason, lease_expires_at_ms: null, updated_at_ms: now })
        .where("handoff_id", "=", handoffId)
        .where(OPEN_STATUSES)
        .where("completion_started_at_ms", "is", null)
        .returningAll()
        .executeTakeFirst();
      if (row !== undefined) return toHandoff(row);
      const current = again ? await this.#find(handoffId) : undefined;
      const cancelled = current?.status === "failed" && current.failure_reason === failureReason;
      return cancelled ? toHandoff(current) : undefined;
    });
  }

  /** One hand-off with its claim token (NotFoundError when there is none); the token never leaves the runtime. */
  async read(handoffId: string): Promise<HandoffRecord> {
    return toRecord(await this.#row(handoffId));
  }

  /** One row of the queue; NotFoundError when there is none. */
  #row(handoffId: string): Promise<HandoffRow> {
    return guardRead("getHandoff", async () => {
      const row = await this.#find(handoffId);
      if (row === undefined) throw new NotFoundError("handoff", handoffId);
      return row;
    });
  }

  /** Hand-offs oldest first, optionally of one status, one source session, or only the open ones. */
  list(filter: { status?: HandoffStatus; sourceSessionId?: string; open?: boolean } = {}): Promise<Handoff[]> {
    return guardRead("listHandoffs", async () => (await this.#rows(filter)).map(toHandoff));
  }

  /** Whether the log holds `sessionId` erased (unguarded: for the guarded operations). */
  async #erased(sessionId: string): Promise<boolean> {
    const session = await this.#db
      .selectFrom("sessions")
      .select("erased_at")
      .where("session_id", "=", sessionId)
      .executeTakeFirst();
    return session !== undefined && session.erased_at !== null;
  }

  /** One row of the queue, or undefined (unguarded: for the guarded operations). */
  #find(handoffId: string): Promise<HandoffRow | undefined> {
    return this.#db.selectFrom("handoffs").selectAll().where("handoff_id", "=", handoffId).executeTakeFirst();
  }

  /** The rows `list` returns (unguarded: for the guarded operations). */
  #rows(filter: { status?: HandoffStatus; sourceSessionId?: string; open?: boolean }): Promise<HandoffRow[]> {
    return this.#db
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
  }

  /** The open row claimed under `token` with its lease unexpired at `now`, if any (claim's own, taken by a lost attempt). */
  #claimed(token: string, now: RawBuilder<number>): Promise<HandoffRow | undefined> {
    return this.#db
      .selectFrom("handoffs")
      .selectAll()
      .where(OPEN_STATUSES)
      .where("status", "=", "claimed")
      .where("claim_token", "=", token)
      .where("lease_expires_at_ms", ">", now)
      .executeTakeFirst();
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
    throw fenceRefusal(await this.#find(claim.handoffId), claim, notCompleting);
  }
}

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
import { uuidv7 } from "uuidv7";
import { type HandoffRow, toClaim, toHandoff, toRecord } from "../handoff/handoff-record.ts";
import {
  checkClaimOptions,
  checkLease,
  checkNewHandoff,
  fenceRefusal,
  finishedFields,
  handoffOpen,
  pendingRow,
  repeatsFinish,
} from "../handoff/handoff-rules.ts";
import type { MemoryLog } from "./memory-log.ts";

/** Whether a hand-off is still open (pending or claimed): at most one per source session. */
const isOpen = (row: HandoffRow): boolean => row.status === "pending" || row.status === "claimed";

/** Oldest first, then by id: the order of a claim and of a list. */
const byAge = (a: HandoffRow, b: HandoffRow): number =>
  a.created_at_ms - b.created_at_ms || (a.handoff_id < b.handoff_id ? -1 : a.handoff_id > b.handoff_id ? 1 : 0);

/**
 * The hand-off queue of a memory store, with the rules of the SQL one (handoff/handoff-queue.ts): one open
 * hand-off per source, claims of the oldest claimable one under a lease, every later transition fenced by
 * the claim's token and an unexpired lease, and the completion protocol. Times are the process clock's,
 * or `clock`'s. `ready` throws when the handle it belongs to is closed.
 */
export class MemoryHandoffQueue implements HandoffQueuePort {
  readonly #log: MemoryLog;
  readonly #ready: (operation: string) => void;
  readonly #clock: Clock | undefined;

  /** The queue kept in `log`, used through a handle that `ready` checks is open. */
  constructor(log: MemoryLog, ready: (operation: string) => void, clock?: Clock) {
    this.#log = log;
    this.#ready = ready;
    this.#clock = clock;
  }

  /** The same queue reading time from `clock` instead of the process clock. */
  withClock(clock: Clock): MemoryHandoffQueue {
    return new MemoryHandoffQueue(this.#log, this.#ready, clock);
  }

  async insert(input: NewHandoff): Promise<Handoff> {
    checkNewHandoff(input);
    this.#ready("requestHandoff");
    if (this.#log.sessions.get(input.sourceSessionId)?.row.erased_at != null)
      throw sessionErased(input.sourceSessionId);
    const open = this.#rows({ sourceSessionId: input.sourceSessionId, open: true });
    if (open.length > 0) throw handoffOpen(input.sourceSessionId, open.map(toHandoff));
    const row: HandoffRow = pendingRow(input, this.#now());
    this.#log.handoffs.set(row.handoff_id, row);
    return toHandoff(row);
  }

  async claim(options: ClaimOptions): Promise<HandoffClaim | undefined> {
    checkClaimOptions(options);
    this.#ready("claimHandoff");
    const now = this.#now();
    const row = this.#rows({ open: true }).find(
      (r) =>
        (r.status === "pending" || (r.lease_expires_at_ms !== null && r.lease_expires_at_ms <= now)) &&
        (options.target === undefined || r.target === options.target),
    );
    if (row === undefined) return undefined;
    Object.assign(row, {
      status: "claimed",
      claimed_by: options.claimant,
      claim_token: uuidv7(),
      attempts: row.attempts + 1,
      lease_expires_at_ms: now + options.leaseMs,
      updated_at_ms: now,
    });
    return toClaim(row);
  }

  async renew(claim: HandoffClaimRef, leaseMs: number): Promise<HandoffClaim> {
    checkLease(leaseMs);
    const now = this.#now("renewHandoff");
    return toClaim(this.#fenced(claim, now, { lease_expires_at_ms: now + leaseMs, updated_at_ms: now }));
  }

  async check(claim: HandoffClaimRef): Promise<HandoffClaim> {
    const now = this.#now("checkHandoffClaim");
    return toClaim(this.#fenced(claim, now, { updated_at_ms: now }));
  }

  async startCompletion(claim: HandoffClaimRef): Promise<Handoff> {
    const now = this.#now("startHandoffCompletion");
    const started = this.#log.handoffs.get(claim.handoffId)?.completion_started_at_ms ?? now;
    return toHandoff(this.#fenced(claim, now, { completion_started_at_ms: started, updated_at_ms: now }));
  }

  async finish(claim: HandoffClaimRef, end: Finish, evenIfCompleting = false): Promise<Handoff> {
    const now = this.#now("finishHandoff");
    const failing = end.status === "failed";
    try {
      return toHandoff(this.#fenced(claim, now, finishedFields(end, now), failing && !evenIfCompleting));
    } catch (error) {
      if (!(error instanceof ClaimLost) || !repeatsFinish(this.#row(claim.handoffId), claim, end)) throw error;
      return toHandoff(this.#row(claim.handoffId));
    }
  }

  async markCompleted(handoffId: string): Promise<Handoff> {
    const now = this.#now("completeHandoff");
    const row = this.#row(handoffId);
    if (row.status === "claimed" && row.completion_started_at_ms !== null) {
      Object.assign(row, { status: "completed", failure_reason: null, lease_expires_at_ms: null, updated_at_ms: now });
    }
    if (row.status === "completed") return toHandoff(row);
    throw new ClaimLost(handoffId, "not-claimed", row.status);
  }

  async cancel(handoffId: string, failureReason: string): Promise<Handoff | undefined> {
    const now = this.#now("cancelHandoff");
    const row = this.#log.handoffs.get(handoffId);
    if (row === undefined || !isOpen(row) || row.completion_started_at_ms !== null) return undefined;
    Object.assign(row, {
      status: "failed",
      failure_reason: failureReason,
      lease_expires_at_ms: null,
      updated_at_ms: now,
    });
    return toHandoff(row);
  }

  async read(handoffId: string): Promise<HandoffRecord> {
    this.#ready("getHandoff");
    return toRecord(this.#row(handoffId));
  }

  async list(filter: { status?: HandoffStatus; sourceSessionId?: string; open?: boolean } = {}): Promise<Handoff[]> {
    this.#ready("listHandoffs");
    return this.#rows(filter).map(toHandoff);
  }

  /** Now in epoch ms (the clock's, or the process's), once the handle is checked open for `operation`. */
  #now(operation?: string): number {
    if (operation !== undefined) this.#ready(operation);
    return this.#clock?.() ?? Date.now();
  }

  /** The hand-offs matching `filter`, oldest first. */
  #rows(filter: { status?: HandoffStatus; sourceSessionId?: string; open?: boolean }): HandoffRow[] {
    return [...this.#log.handoffs.values()]
      .filter(
        (r) =>
          (filter.status === undefined || r.status === filter.status) &&
          (filter.sourceSessionId === undefined || r.source_session_id === filter.sourceSessionId) &&
          (filter.open !== true || isOpen(r)),
      )
      .sort(byAge);
  }

  /** One hand-off; NotFoundError when there is none. */
  #row(handoffId: string): HandoffRow {
    const row = this.#log.handoffs.get(handoffId);
    if (row === undefined) throw new NotFoundError("handoff", handoffId);
    return row;
  }

  /**
   * Applies `set` to the claim's hand-off if the claim still holds: claimed, this token, an unexpired
   * lease (and, when `notCompleting`, no completion begun); otherwise changes nothing and throws why.
   */
  #fenced(claim: HandoffClaimRef, now: number, set: Partial<HandoffRow>, notCompleting = false): HandoffRow {
    const row = this.#log.handoffs.get(claim.handoffId);
    const holds =
      row !== undefined &&
      row.status === "claimed" &&
      row.claim_token === claim.token &&
      (row.lease_expires_at_ms ?? 0) > now &&
      (!notCompleting || row.completion_started_at_ms === null);
    if (!holds) throw fenceRefusal(row, claim, notCompleting);
    return Object.assign(row, set);
  }
}

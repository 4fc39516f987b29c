import type { Handoff, HandoffClaim, HandoffClaimRef, HandoffRow } from "./handoff-record.ts";
import type { HandoffStatus } from "./handoff-table.ts";
import type { Clock } from "./handoff-time.ts";

/** A new row of the queue. */
export interface NewHandoff {
  sourceSessionId: string;
  successorSessionId: string;
  target?: string;
  reason?: string;
}

/** What a claimer asks for: who it is, how long its lease runs, and optionally which target it serves. */
export interface ClaimOptions {
  claimant: string;
  leaseMs: number;
  /** Only hand-offs addressed to this target; without it, any hand-off. */
  target?: string;
}

/** The end of a claimed hand-off: completed, or failed with a reason. */
export type Finish = { status: "completed" } | { status: "failed"; failureReason: string };

/**
 * The durable hand-off queue as the runtime uses it (HandoffQueue is the store's): requests, claims under
 * a lease fenced by a token, the completion protocol, and reads. See HandoffQueue for each step's rules.
 */
export interface HandoffQueuePort {
  /** The same queue reading time from `clock` instead of the database. */
  withClock(clock: Clock): HandoffQueuePort;
  /** Adds a pending hand-off; InvariantViolation `handoff-open` when its source already has an open one. */
  insert(input: NewHandoff): Promise<Handoff>;
  /** Claims the oldest pending (or lease-expired) hand-off; undefined when none is claimable. */
  claim(options: ClaimOptions): Promise<HandoffClaim | undefined>;
  /** Extends a claim's lease to `leaseMs` from now; ClaimLost when the claim no longer holds. */
  renew(claim: HandoffClaimRef, leaseMs: number): Promise<HandoffClaim>;
  /** Fails with ClaimLost (or NotFoundError) unless the claim still holds. */
  check(claim: HandoffClaimRef): Promise<HandoffClaim>;
  /** Records, under the claim, that a completion began: from then on the hand-off can only complete. */
  startCompletion(claim: HandoffClaimRef): Promise<Handoff>;
  /** Ends a claimed hand-off if the claim still holds (failing a completing one only `evenIfCompleting`). */
  finish(claim: HandoffClaimRef, end: Finish, evenIfCompleting?: boolean): Promise<Handoff>;
  /** Marks completed a claimed hand-off whose completion began, under any claim and lease. */
  markCompleted(handoffId: string): Promise<Handoff>;
  /** Fails an open hand-off whose completion has not begun; undefined when it no longer can be. */
  cancel(handoffId: string, failureReason: string): Promise<Handoff | undefined>;
  /** One hand-off with its claim token (internal: the token never leaves the store through get/list). */
  row(handoffId: string): Promise<HandoffRow>;
  /** Hand-offs oldest first, optionally of one status, one source session, or only the open ones. */
  list(filter?: { status?: HandoffStatus; sourceSessionId?: string; open?: boolean }): Promise<Handoff[]>;
}

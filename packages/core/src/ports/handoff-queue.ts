/** Where a hand-off stands: waiting, taken by a claimer under a lease, or finished one way or the other. */
export type HandoffStatus = "pending" | "claimed" | "completed" | "failed";

/** One hand-off of the queue as callers see it (times are ISO strings; the claim token is not shown). */
export interface Handoff {
  handoffId: string;
  sourceSessionId: string;
  /** Chosen when the hand-off is requested, so a retried completion always finishes the same successor. */
  successorSessionId: string;
  status: HandoffStatus;
  /** Which platform or process kind should take it; claimers may filter on it. */
  target?: string;
  reason?: string;
  claimedBy?: string;
  /** Claims taken so far; each claim gets the next number and a fresh token (fencing). */
  attempts: number;
  leaseExpiresAt?: string;
  failureReason?: string;
  /** When a completion began; from then on the hand-off can only complete (`fail` refuses). */
  completionStartedAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** What a transition after claiming needs: the hand-off and the token its claim received. */
export interface HandoffClaimRef {
  handoffId: string;
  token: string;
}

/** A claim held on a hand-off: the hand-off as claimed plus the token that fences every later transition. */
export interface HandoffClaim extends Handoff, HandoffClaimRef {
  claimedBy: string;
  leaseExpiresAt: string;
}

/** A hand-off with its current claim's token (absent while unclaimed): what the runtime reads, never shows. */
export interface HandoffRecord extends Handoff {
  claimToken?: string;
}

/** A new hand-off of the queue. */
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

/** The current time in epoch milliseconds, as a test clock gives it. */
export type Clock = () => number;

/**
 * The durable hand-off queue as the runtime uses it: requests, claims under a lease fenced by a token,
 * the completion protocol, and reads. The store's HandoffQueue implements it (see it for each step's rules).
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
  /** One hand-off with its claim token (NotFoundError when there is none); the token never leaves the runtime. */
  read(handoffId: string): Promise<HandoffRecord>;
  /** Hand-offs oldest first, optionally of one status, one source session, or only the open ones. */
  list(filter?: { status?: HandoffStatus; sourceSessionId?: string; open?: boolean }): Promise<Handoff[]>;
}

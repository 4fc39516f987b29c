import {
  ClaimLost,
  type ClaimOptions,
  checkIdLength,
  type Finish,
  type Handoff,
  type HandoffClaimRef,
  InvariantViolation,
  type NewHandoff,
  NotFoundError,
  ValidationError,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { HandoffRow } from "./handoff-record.ts";

/** What an erasure leaves of a hand-off's failure text, and the failure of the open hand-offs it ends. */
export const ERASED_FAILURE = "session erased";

/** A lease must be a positive, finite number of milliseconds. */
export function checkLease(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) {
    throw new ValidationError(`invalid lease: ${String(leaseMs)}`, [
      "leaseMs must be a positive integer of milliseconds",
    ]);
  }
}

/** ValidationError for a successor id or target longer than its limit (ID_LIMITS), before anything is written. */
export function checkNewHandoff(input: NewHandoff): void {
  checkIdLength("session", input.successorSessionId, "successorSessionId");
  checkIdLength("handoffTarget", input.target, "target");
}

/** ValidationError for a claim without a claimant or with a bad lease. */
export function checkClaimOptions(options: ClaimOptions): void {
  checkLease(options.leaseMs);
  if (options.claimant.trim() === "") throw new ValidationError("a claimant is required", ["claimant is empty"]);
}

/** The refusal of a second open hand-off for a source: InvariantViolation `handoff-open` naming the open ones. */
export function handoffOpen(sourceSessionId: string, open: readonly Handoff[]): InvariantViolation {
  const ids = open.map((h) => h.handoffId);
  return new InvariantViolation(
    "handoff-open",
    `session ${sourceSessionId} already has an open hand-off (${ids.join(", ")})`,
    { sessionId: sourceSessionId, ids },
  );
}

/**
 * Why a transition fenced by `claim` (claimed, this token, an unexpired lease, and, when `notCompleting`, no
 * completion begun) did not apply to the row as it now is (`undefined`: there is none): NotFoundError,
 * ClaimLost (token-mismatch, not-claimed, lease-expired) or InvariantViolation `handoff-completing`.
 */
export function fenceRefusal(
  current: HandoffRow | undefined,
  claim: HandoffClaimRef,
  notCompleting: boolean,
): NotFoundError | ClaimLost | InvariantViolation {
  if (current === undefined) return new NotFoundError("handoff", claim.handoffId);
  if (current.claim_token !== claim.token) return new ClaimLost(claim.handoffId, "token-mismatch", current.status);
  if (current.status !== "claimed") return new ClaimLost(claim.handoffId, "not-claimed", current.status);
  if (notCompleting && current.completion_started_at_ms !== null) {
    // Whether or not the lease also ran out, this hand-off can no longer be failed.
    return new InvariantViolation(
      "handoff-completing",
      `hand-off ${claim.handoffId} is being completed; complete it instead of failing it`,
      { sessionId: current.source_session_id, ids: [current.successor_session_id] },
    );
  }
  return new ClaimLost(claim.handoffId, "lease-expired", current.status);
}

/** What finishing a claimed hand-off sets at `now` (epoch ms, or the SQL expression of it): its end, no lease. */
export function finishedFields<T>(end: Finish, now: T) {
  const failureReason = end.status === "failed" ? end.failureReason : null;
  return { status: end.status, failure_reason: failureReason, lease_expires_at_ms: null, updated_at_ms: now };
}

/** Whether a finish its claim no longer allows repeats the end that claim made (its answer is then the row). */
export function repeatsFinish(current: HandoffRow, claim: HandoffClaimRef, end: Finish): boolean {
  return current.status === end.status && current.claim_token === claim.token;
}

/** Whether the row is still claimed under `claim`'s token with its completion begun (its lease may have run out). */
export function startedUnder(current: HandoffRow, claim: HandoffClaimRef): boolean {
  return (
    current.status === "claimed" && current.claim_token === claim.token && current.completion_started_at_ms !== null
  );
}

/**
 * What an erasure sets on an open hand-off of the erased session whose completion has not begun: failed,
 * no claim (a claimer's next step is ClaimLost), at `nowMs`.
 */
export function erasedOpenFields(nowMs: number) {
  return {
    status: "failed" as const,
    failure_reason: ERASED_FAILURE,
    claim_token: null,
    lease_expires_at_ms: null,
    updated_at_ms: nowMs,
  };
}

/** The row of a new, pending hand-off requested at `now` (epoch ms, or the SQL expression of it). */
export function pendingRow<T>(input: NewHandoff, now: T) {
  return {
    handoff_id: uuidv7(),
    source_session_id: input.sourceSessionId,
    successor_session_id: input.successorSessionId,
    status: "pending" as const,
    target: input.target ?? null,
    reason: input.reason ?? null,
    claimed_by: null,
    claim_token: null,
    attempts: 0,
    lease_expires_at_ms: null,
    failure_reason: null,
    completion_started_at_ms: null,
    created_at_ms: now,
    updated_at_ms: now,
  };
}

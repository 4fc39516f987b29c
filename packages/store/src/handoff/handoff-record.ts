import type { Selectable } from "kysely";
import type { HandoffStatus, HandoffsTable } from "./handoff-table.ts";

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

/** A claim held on a hand-off: the row as claimed plus the token that fences every later transition. */
export interface HandoffClaim extends Handoff, HandoffClaimRef {
  claimedBy: string;
  leaseExpiresAt: string;
}

/** One row of `handoffs` as read back. */
export type HandoffRow = Selectable<HandoffsTable>;

const iso = (ms: number | string): string => new Date(Number(ms)).toISOString();

/** The caller's view of a row. */
export function toHandoff(row: HandoffRow): Handoff {
  return {
    handoffId: row.handoff_id,
    sourceSessionId: row.source_session_id,
    successorSessionId: row.successor_session_id,
    status: row.status,
    ...(row.target === null ? {} : { target: row.target }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.claimed_by === null ? {} : { claimedBy: row.claimed_by }),
    attempts: row.attempts,
    ...(row.lease_expires_at_ms === null ? {} : { leaseExpiresAt: iso(row.lease_expires_at_ms) }),
    ...(row.failure_reason === null ? {} : { failureReason: row.failure_reason }),
    ...(row.completion_started_at_ms === null ? {} : { completionStartedAt: iso(row.completion_started_at_ms) }),
    createdAt: iso(row.created_at_ms),
    updatedAt: iso(row.updated_at_ms),
  };
}

/** The claim a successful claim statement returned (it always sets claimant, token and lease). */
export function toClaim(row: HandoffRow): HandoffClaim {
  return {
    ...toHandoff(row),
    token: row.claim_token ?? "",
    claimedBy: row.claimed_by ?? "",
    leaseExpiresAt: iso(row.lease_expires_at_ms ?? 0),
  };
}

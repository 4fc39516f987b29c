import type { Handoff, HandoffClaim, HandoffRecord } from "@palimpsest/core";
import type { Selectable } from "kysely";
import type { HandoffsTable } from "./handoff-table.ts";

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

/** The runtime's view of a row: the caller's, with the current claim's token. */
export function toRecord(row: HandoffRow): HandoffRecord {
  return { ...toHandoff(row), ...(row.claim_token === null ? {} : { claimToken: row.claim_token }) };
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

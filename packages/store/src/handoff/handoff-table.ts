import type { HandoffStatus } from "@palimpsest/core";
import type { Generated } from "kysely";

/** One row of the hand-off queue (migration 0004); times are epoch milliseconds. */
export interface HandoffsTable {
  handoff_id: string;
  source_session_id: string;
  successor_session_id: string;
  status: HandoffStatus;
  target: string | null;
  reason: string | null;
  claimed_by: string | null;
  /** The current claim's token: a transition must present it (with an unexpired lease) to act. */
  claim_token: string | null;
  /** Claims taken so far (the fencing counter). */
  attempts: Generated<number>;
  lease_expires_at_ms: number | null;
  failure_reason: string | null;
  /** When a completion began under a claim (migration 0007); from then on the hand-off can only complete. */
  completion_started_at_ms: number | null;
  created_at_ms: number;
  updated_at_ms: number;
}

/** The hand-off tables, merged into the store's kysely database type. */
export type HandoffTables = {
  handoffs: HandoffsTable;
};

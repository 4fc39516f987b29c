import { BATCH_MODES, batchCompactions, definedFields, type PolicyInput, type SessionState } from "@palimpsest/core";
import { z } from "zod";
import type { ResolvedCompaction } from "./compaction-settings.ts";
import { summarizerConfigKey } from "./summarize-entries.ts";

/** When the next request goes out and when the previous one did (epoch ms); a replay passes the transcript's. */
export interface RequestTimes {
  nowMs: number;
  previousRequestMs?: number;
}

/** RequestTimes' schema (checkOptions): instants in epoch ms. */
export const REQUEST_TIMES_SCHEMA = z.strictObject({
  nowMs: z.number().finite(),
  previousRequestMs: z.number().finite().optional(),
});

/** The request times outside a replay: the wall clock, and the session's last completed turn as the previous request. */
export function wallClockTimes(state: Readonly<SessionState>): RequestTimes {
  return { nowMs: Date.now(), ...definedFields({ previousRequestMs: state.lastTurnAt }) };
}

/**
 * The batch policy's input for a session: the view, the window, and the recent batch compactions and
 * failures (precompact counts as a batch compaction), so compact() and the background planner agree on the span.
 * Times default to the wall clock and the session's last completed turn (wallClockTimes).
 */
export function batchPolicyInput(
  state: Readonly<SessionState>,
  settings: ResolvedCompaction,
  force: boolean,
  times: RequestTimes = wallClockTimes(state),
): PolicyInput {
  return {
    ...times,
    view: state.live,
    viewVersion: state.viewVersion,
    liveTokens: state.liveTokens,
    contextWindow: settings.contextWindow,
    maxOutputTokens: settings.maxOutputTokens,
    profile: settings.profile,
    compactions: batchCompactions(state),
    force,
    history: {
      compactions: state.recentCompactions.filter((c) => BATCH_MODES.has(c.mode)),
      failures: state.recentFailures,
      now: Date.now(),
      configKey: summarizerConfigKey(settings.summarizer),
    },
  };
}

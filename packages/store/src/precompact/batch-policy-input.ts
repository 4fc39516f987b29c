import { BATCH_MODES, batchCompactions, type PolicyInput, type SessionState } from "@palimpsest/core";
import type { ResolvedCompaction } from "../runtime/compaction-settings.ts";

/**
 * The batch policy's input for a session, as compact() builds it, except that every batch compaction
 * (precompact included) counts for the head and the anti-thrash history, so the background planner and
 * the commit agree on the span.
 */
export function batchPolicyInput(
  state: Readonly<SessionState>,
  settings: ResolvedCompaction,
  force: boolean,
): PolicyInput {
  return {
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
      configKey: `${settings.summarizer.model}@${settings.summarizer.promptVersion}`,
    },
  };
}

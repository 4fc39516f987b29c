import { BATCH_MODES, batchCompactions, type PolicyInput, type SessionState } from "@palimpsest/core";
import type { ResolvedCompaction } from "./compaction-settings.ts";
import { summarizerConfigKey } from "./summarize-entries.ts";

/**
 * The batch policy's input for a session: the view, the window, and the recent batch compactions and
 * failures (precompact counts as a batch compaction), so compact() and the background planner agree on the span.
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
      configKey: summarizerConfigKey(settings.summarizer),
    },
  };
}

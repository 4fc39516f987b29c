import type { MicroSettings, ProviderProfile, Summarizer } from "@palimpsest/core";
import { compact } from "../runtime/compact.ts";
import { microCompact } from "../runtime/micro-compact.ts";
import type { Session } from "../runtime/session.ts";
import { observeCompaction } from "./observe-compaction.ts";
import { observeMicro, type ReplayCompaction } from "./observe-micro.ts";
import type { ReplayPolicy } from "./replay-policy.ts";

/** What one step between two requests runs with: the batch policy, micro settings (undefined: off), and the rest. */
export interface CompactionStepOptions {
  policy: ReplayPolicy;
  micro?: Partial<MicroSettings>;
  profile: ProviderProfile;
  contextWindow: number;
  maxOutputTokens?: number;
  summarizer?: Summarizer;
}

/** What a step did: the compaction it committed (if any), and whether a summarizer call failed (view untouched). */
export interface CompactionStep {
  committed?: ReplayCompaction;
  failed: boolean;
}

/**
 * One step after a request's assistant message and its tool results, as the runtime's after-turn hook
 * does it: the batch policy (when not `none`) if it is over its threshold, otherwise one micro pass (when on).
 */
export async function compactionStep(
  session: Session,
  options: CompactionStepOptions,
  requestIndex: number,
): Promise<CompactionStep> {
  const viewBefore = session.state.live;
  const { policy, profile, contextWindow, maxOutputTokens, summarizer } = options;
  const shared = {
    profile,
    contextWindow,
    trigger: "auto" as const,
    ...(summarizer === undefined ? {} : { summarizer }),
  };
  let failed = false;
  if (policy !== "none") {
    const outcome = await compact(session, {
      ...shared,
      policy,
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    });
    if (outcome.status === "compacted") {
      return { committed: observeCompaction(outcome, viewBefore, requestIndex), failed };
    }
    failed = outcome.status === "failed";
  }
  if (options.micro === undefined) return { failed };
  const outcome = await microCompact(session, { ...options.micro, ...shared });
  const committed = observeMicro(outcome, viewBefore, requestIndex);
  failed ||= outcome.outcome === "failed";
  return { ...(committed === undefined ? {} : { committed }), failed };
}

import type { CachePrices, MicroSettings, ProviderProfile, Summarizer } from "@palimpsest/core";
import { definedFields } from "@palimpsest/core";
import type {
  PolicyDefinition,
  PrecompactionScheduler,
  PrecompactOutcome,
  PrecompactUse,
  RequestTimes,
  Session,
} from "@palimpsest/runtime";
import { afterTurnStep, compact, microScheduleOf, policyFor } from "@palimpsest/runtime";
import { observeCompaction } from "./observe-compaction.ts";
import { observeMicroPasses, type ReplayCompaction } from "./observe-micro.ts";
import type { ReplayPolicy } from "./replay-policy.ts";

/** What one step between two requests runs with: the batch policy, micro settings (undefined: off), and the rest. */
export interface CompactionStepOptions {
  /** A registered policy's name, `none`, or a policy's own definition (as CompactionSettings.policy takes). */
  policy: ReplayPolicy | PolicyDefinition;
  micro?: Partial<MicroSettings>;
  profile: ProviderProfile;
  contextWindow: number;
  maxOutputTokens?: number;
  summarizer?: Summarizer;
  /** What the summarizer's calls cost, for the policies that weigh it (cost-optimal); default the profile's prices. */
  summarizerPrices?: CachePrices;
  /** What a fact a summary drops is worth (cost-optimal's trade of recall for cost; CompactionSettings.lostFactUsd). */
  lostFactUsd?: number;
  /**
   * The provider's tokens per one of ours (the replay's calibration, default 1): a summarizer's call that
   * reports no usage (the offline one) is billed at our counts times this, as the agent's requests are.
   */
  tokenScale?: number;
  /**
   * Background pre-compaction: batch compactions go through this scheduler's compact() (measuring the cold
   * summary of the same span on a hit, so the time saved is measured, not estimated).
   */
  precompact?: PrecompactionScheduler;
}

/** How long one committed batch compaction kept the turn waiting, and whether it used a candidate. */
export interface SyncCompaction {
  ms: number;
  hit: boolean;
}

/** What a step did: the compaction it committed (if any), and whether a summarizer call failed (view untouched). */
export interface CompactionStep {
  committed?: ReplayCompaction;
  failed: boolean;
  /** A committed batch compaction's synchronous time (start of compact() to its commit). */
  sync?: SyncCompaction;
  /** How a due summary used the background candidate (with pre-compaction on). */
  precompact?: PrecompactUse;
}

/**
 * One step after a request's assistant message and its tool results: the runtime's after-turn step
 * (afterTurnStep) with the batch policy (when not `none`) and micro passes (when on) as the policy
 * schedules them. Here: what the step cost is observed for the replay, and a batch compaction is timed.
 * `times` are the transcript's (the next request's and the previous one's); without them the policy sees none.
 */
export async function compactionStep(
  session: Session,
  options: CompactionStepOptions,
  requestIndex: number,
  times?: RequestTimes,
): Promise<CompactionStep> {
  const viewBefore = session.state.live;
  const { profile, contextWindow, maxOutputTokens, summarizer, summarizerPrices, lostFactUsd } = options;
  const named = options.policy;
  const policy = named === "none" ? undefined : policyFor({ policy: named }, profile);
  const shared = {
    profile,
    contextWindow,
    trigger: "auto" as const,
    ...definedFields({ summarizer, summarizerPrices, lostFactUsd }),
  };
  let ms = 0;
  const batch =
    policy === undefined
      ? undefined
      : async (): Promise<PrecompactOutcome> => {
          const compacting = { ...shared, policy, ...definedFields({ maxOutputTokens, times }) };
          const started = performance.now();
          const outcome =
            options.precompact === undefined
              ? await compact(session, compacting)
              : await options.precompact.compact(session, { ...compacting, measureCold: true });
          ms = performance.now() - started;
          return outcome;
        };
  const micro =
    options.micro === undefined
      ? undefined
      : { options: { ...options.micro, ...shared, ...definedFields({ times }) }, schedule: microScheduleOf(policy) };
  const step = await afterTurnStep(session, definedFields({ batch, micro }));
  const use = step.batch?.precompact;
  const precompact = use === undefined ? {} : { precompact: use };
  if (step.batch?.status === "compacted") {
    // A hit's own commit time; otherwise the wall time of the call (a miss includes its validation).
    const sync = { ms: round(use?.type === "hit" ? use.commitMs : ms), hit: use?.type === "hit" };
    const committed = observeCompaction(step.batch, viewBefore, requestIndex, options.tokenScale);
    return { committed, failed: false, sync, ...precompact };
  }
  const committed = observeMicroPasses(step.passes, requestIndex, options.tokenScale);
  const failed = step.batch?.status === "failed" || step.passes.some((p) => p.outcome.outcome === "failed");
  return { ...definedFields({ committed }), failed, ...precompact };
}

function round(ms: number): number {
  return Math.round(ms * 1_000) / 1_000;
}

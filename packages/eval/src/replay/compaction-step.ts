import type { CachePrices, MicroSettings, ProviderProfile, Summarizer } from "@palimpsest/core";
import { definedFields } from "@palimpsest/core";
import type {
  PrecompactionScheduler,
  PrecompactOutcome,
  PrecompactUse,
  RequestTimes,
  Session,
} from "@palimpsest/runtime";
import { compact, microBatch, microCompact } from "@palimpsest/runtime";
import { observeCompaction } from "./observe-compaction.ts";
import { observeMicro, observeMicroBatch, type ReplayCompaction } from "./observe-micro.ts";
import type { ReplayPolicy } from "./replay-policy.ts";

/** What one step between two requests runs with: the batch policy, micro settings (undefined: off), and the rest. */
export interface CompactionStepOptions {
  policy: ReplayPolicy;
  micro?: Partial<MicroSettings>;
  profile: ProviderProfile;
  contextWindow: number;
  maxOutputTokens?: number;
  summarizer?: Summarizer;
  /** What the summarizer's calls cost, for the policies that weigh it (cost-optimal); default the profile's prices. */
  summarizerPrices?: CachePrices;
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
 * One step after a request's assistant message and its tool results, as the runtime's after-turn hook
 * does it: the batch policy (when not `none`) if it is over its threshold, otherwise one micro pass (when on;
 * under `cost-optimal`, a batch of passes when microBatch's cost gate says it pays).
 * `times` are the transcript's (the next request's and the previous one's); without them the policy sees none.
 */
export async function compactionStep(
  session: Session,
  options: CompactionStepOptions,
  requestIndex: number,
  times?: RequestTimes,
): Promise<CompactionStep> {
  const viewBefore = session.state.live;
  const { policy, profile, contextWindow, maxOutputTokens, summarizer, summarizerPrices } = options;
  const shared = {
    profile,
    contextWindow,
    trigger: "auto" as const,
    ...definedFields({ summarizer, summarizerPrices }),
  };
  let failed = false;
  let precompact: { precompact?: PrecompactUse } = {};
  if (policy !== "none") {
    const batch = { ...shared, policy, ...definedFields({ maxOutputTokens, times }) };
    const started = performance.now();
    const outcome: PrecompactOutcome =
      options.precompact === undefined
        ? await compact(session, batch)
        : await options.precompact.compact(session, { ...batch, measureCold: true });
    const use = outcome.precompact;
    precompact = use === undefined ? {} : { precompact: use };
    if (outcome.status === "compacted") {
      // A hit's own commit time; otherwise the wall time of the call (a miss includes its validation).
      const ms = use?.type === "hit" ? use.commitMs : performance.now() - started;
      const sync = { ms: round(ms), hit: use?.type === "hit" };
      return { committed: observeCompaction(outcome, viewBefore, requestIndex), failed, sync, ...precompact };
    }
    failed = outcome.status === "failed";
  }
  if (options.micro === undefined) return { failed, ...precompact };
  if (policy === "cost-optimal") {
    // Under the cost-optimal backstop, micro passes are batched by the same rule (microBatch).
    const batch = await microBatch(session, { ...options.micro, ...shared, ...definedFields({ times }) });
    const committed = observeMicroBatch(batch.passes, requestIndex);
    failed ||= batch.passes.some((p) => p.outcome.outcome === "failed");
    return { ...definedFields({ committed }), failed, ...precompact };
  }
  const outcome = await microCompact(session, { ...options.micro, ...shared });
  const committed = observeMicro(outcome, viewBefore, requestIndex);
  failed ||= outcome.outcome === "failed";
  return { ...definedFields({ committed }), failed, ...precompact };
}

function round(ms: number): number {
  return Math.round(ms * 1_000) / 1_000;
}

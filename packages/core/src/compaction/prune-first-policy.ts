import { DEFAULT_ANTI_THRASH } from "./anti-thrash.ts";
import { gateCompaction } from "./policy-gate.ts";
import type { CompactionPolicy, CountTokens } from "./policy-types.ts";
import { planPrune } from "./prune-plan.ts";
import { selectSpan } from "./span-selection.ts";
import { planSummary } from "./summary-plan.ts";
import { type PolicyOptions, reached } from "./summary-policy.ts";
import { runwayTarget, tailBudget } from "./threshold.ts";

/** Options of the prune-first policy: the session's token counter for the stubs it writes. */
export interface PruneFirstOptions extends PolicyOptions {
  countTokens: CountTokens;
}

/**
 * Cache-aware: prune old middle tool outputs in one event, and accept the prune only if it lands at or
 * below `threshold − max(pruneMinimumTokens, 0.15 × threshold)`, so it buys a runway before the next
 * mutation. Otherwise fall through to a summary in the same pass.
 */
export function pruneFirstPolicy(options: PruneFirstOptions): CompactionPolicy {
  const antiThrash = options.antiThrash ?? DEFAULT_ANTI_THRASH;
  return {
    name: "prune-first",
    plan(input) {
      const gate = gateCompaction(input, antiThrash);
      if ("kind" in gate) return gate;
      const why = reached(input.liveTokens, gate.threshold, input.force);
      const span = selectSpan(input.view, tailBudget(input.contextWindow, input.profile.tail), input.compactions);
      const prune = planPrune(input.view, span, input.profile, input.viewVersion, options.countTokens);
      const tokensAfter = input.liveTokens - prune.removedTokens + prune.addedTokens;
      const target = runwayTarget(gate.threshold, input.profile.runway);
      if (prune.targets.length > 0 && tokensAfter <= target) {
        return {
          kind: "prune",
          targets: prune.targets,
          replacements: prune.replacements,
          tokensBefore: input.liveTokens,
          tokensAfter,
          reason: `${why}: pruning ${prune.targets.length} tool outputs lands at ${tokensAfter}, within the runway target of ${target}`,
        };
      }
      const short =
        target <= 0
          ? `the window leaves no runway for a prune (its threshold of ${gate.threshold} is under the ${input.profile.runway.pruneMinimumTokens} tokens a prune must free)`
          : prune.targets.length === 0
            ? "nothing to prune"
            : `a prune would land at ${tokensAfter}, above the runway target of ${target}`;
      if (gate.backoff.blocks === "summary") {
        return { kind: "none", reason: `${short}, and summaries are backing off: ${gate.backoff.reason}` };
      }
      return planSummary(input, `${why}; ${short}`);
    },
  };
}

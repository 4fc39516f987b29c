import { type AntiThrashConfig, DEFAULT_ANTI_THRASH } from "./anti-thrash.ts";
import { gateCompaction } from "./policy-gate.ts";
import type { CompactionPolicy } from "./policy-types.ts";
import { planSummary } from "./summary-plan.ts";

/** Options shared by the policies. */
export interface PolicyOptions {
  antiThrash?: AntiThrashConfig;
}

/** The baseline (what Hermes does): over the threshold, summarize the middle; head and tail protected. */
export function summaryPolicy(options: PolicyOptions = {}): CompactionPolicy {
  const antiThrash = options.antiThrash ?? DEFAULT_ANTI_THRASH;
  return {
    name: "summary",
    plan(input) {
      const gate = gateCompaction(input, antiThrash);
      if ("kind" in gate) return gate;
      if (gate.backoff.blocks === "summary") return { kind: "none", reason: `backing off: ${gate.backoff.reason}` };
      return planSummary(input, reached(input.liveTokens, gate.threshold, input.force));
    },
  };
}

/** Why a compaction runs, for its plan's reason. */
export function reached(liveTokens: number, threshold: number, force: boolean): string {
  return force
    ? `forced at ${liveTokens} live tokens`
    : `${liveTokens} live tokens reached the threshold of ${threshold}`;
}

/**
 * The per-turn policy decision: what `plan()` costs before a request that does not compact (the view
 * under the threshold, the usual turn), for the cost-optimal policy, which plans and costs its candidate
 * spans every turn, against the summary baseline, which checks the threshold and stops. Each size is
 * timed on an uncompacted view and on one that holds earlier summaries (ten compactions before the live
 * messages), where cost-optimal plans every tail twice: updating them and keeping them.
 */
import {
  batchCompactions,
  type CompactionPolicy,
  costOptimalPolicy,
  isSummaryEntry,
  type PolicyInput,
  summaryPolicy,
} from "@palimpsest/core";
import { ANTHROPIC_PROFILE } from "@palimpsest/core/testing";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { median, progress } from "./stats.ts";
import { buildSession } from "./workload.ts";

/** One view size: median ms per plan() of each policy, and what the cost-optimal one decided. */
export interface PolicyDecisionResult {
  messages: number;
  /** Summaries in the view (0: uncompacted). */
  summaries: number;
  liveTokens: number;
  summaryMs: number;
  costOptimalMs: number;
  costOptimalPlan: string;
}

let sink = 0;

/** Median ms per plan() call, each of 7 timed samples running `calls` calls (one untimed warm-up). */
function perPlan(policy: CompactionPolicy, input: PolicyInput, calls: number): number {
  const samples: number[] = [];
  for (let rep = -1; rep < 7; rep++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) sink += policy.plan(input).kind.length;
    if (rep >= 0) samples.push((performance.now() - start) / calls);
  }
  return median(samples);
}

/** Loads uncompacted sessions of each size and times both policies' decision on their view. */
export async function runPolicyDecisionBench(quick: boolean): Promise<PolicyDecisionResult[]> {
  const sizes = quick ? [600, 2_000, 10_000] : [600, 2_000, 10_000, 50_000];
  const store = await openEventStore(":memory:");
  const palimpsest = new Palimpsest({ store, counterFor: createTokenCounter });
  const results: PolicyDecisionResult[] = [];
  try {
    for (const messages of sizes) {
      for (const compacted of [false, true]) {
        const sessionId = `decision-${messages}-${compacted}`;
        // Compacted: ten summarized cycles of `messages` messages, then `messages` live ones after them.
        await buildSession(store, sessionId, {
          messages,
          compact: compacted,
          tail: compacted ? messages : 0,
          batch: 1_000,
        });
        const session = await palimpsest.resume(sessionId);
        const { live, viewVersion } = session.state;
        const liveTokens = session.state.liveTokens;
        // A window four times the view: the threshold is about twice what is live, so neither compacts.
        const input: PolicyInput = {
          view: live,
          viewVersion,
          liveTokens,
          contextWindow: Math.max(200_000, liveTokens * 4),
          maxOutputTokens: 32_000,
          profile: ANTHROPIC_PROFILE,
          compactions: batchCompactions(session.state),
          force: false,
          nowMs: 1_000_000,
          previousRequestMs: 1_000_000 - 30_000,
        };
        const cost = costOptimalPolicy();
        const calls = Math.max(3, Math.floor(200_000 / live.length));
        const result = {
          messages: live.length,
          summaries: live.filter(isSummaryEntry).length,
          liveTokens,
          summaryMs: perPlan(summaryPolicy(), input, calls * 10),
          costOptimalMs: perPlan(cost, input, calls),
          costOptimalPlan: cost.plan(input).kind,
        };
        results.push(result);
        progress(
          `policy-decision ${result.messages} (${result.summaries} summaries): summary ${result.summaryMs.toFixed(4)} ms, cost-optimal ${result.costOptimalMs.toFixed(3)} ms`,
        );
      }
    }
  } finally {
    await palimpsest.close();
  }
  if (sink < 0) throw new Error("unreachable: keeps the plans from being optimised away");
  return results;
}

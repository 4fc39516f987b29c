/**
 * The per-turn budget check: reading the live token total of a loaded session (ours) against
 * re-estimating every live message with ceil(JSON.stringify(message).length / 4) on each check.
 */
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest, type Session } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { median, progress } from "./stats.ts";
import { buildSession } from "./workload.ts";

/** One transcript size: median time per check for each way of knowing the live total. */
export interface BudgetResult {
  messages: number;
  /** session.state.liveTokens: the running total the log carries. */
  liveTokensMs: number;
  /** session.view().tokens: the same total through the active view. */
  viewTokensMs: number;
  /** The reference agent's re-estimate over all live messages. */
  baselineMs: number;
}

let sink = 0;

/** Median ms per call of `check`, each sample timing `calls` calls in a loop. */
function perCheck(calls: number, check: () => number): number {
  const samples: number[] = [];
  for (let rep = -1; rep < 7; rep++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) sink += check();
    if (rep >= 0) samples.push((performance.now() - start) / calls);
  }
  return median(samples);
}

function reestimate(session: Session): number {
  let total = 0;
  for (const entry of session.state.live) total += Math.ceil(JSON.stringify(entry.message).length / 4);
  return total;
}

/** Loads sessions of each size from an in-memory store and times the three checks on them. */
export async function runBudgetBench(quick: boolean): Promise<BudgetResult[]> {
  const sizes = quick ? [600, 1_200, 10_000] : [600, 1_200, 100_000];
  const store = await openEventStore(":memory:");
  const palimpsest = new Palimpsest({ store, counterFor: createTokenCounter });
  const results: BudgetResult[] = [];
  try {
    for (const messages of sizes) {
      const sessionId = `budget-${messages}`;
      await buildSession(store, sessionId, { messages, compact: false, batch: 1_000 });
      const session = await palimpsest.resume(sessionId);
      const result = {
        messages,
        liveTokensMs: perCheck(100_000, () => session.state.liveTokens),
        viewTokensMs: perCheck(Math.max(10, Math.floor(2_000_000 / messages)), () => session.view().tokens),
        baselineMs: perCheck(Math.max(3, Math.floor(60_000 / messages)), () => reestimate(session)),
      };
      results.push(result);
      progress(
        `budget ${messages}: ours ${result.liveTokensMs.toExponential(2)} ms, baseline ${result.baselineMs.toFixed(3)} ms`,
      );
    }
  } finally {
    await palimpsest.close();
  }
  if (sink < 0) throw new Error("unreachable: keeps the checks from being optimised away");
  return results;
}

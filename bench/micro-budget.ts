/**
 * The micro pass's budget check: planning one pass (planMicro on a loaded session's state, and the two
 * view scans inside it) against the reference agent's chars/4 re-estimate of every live message, taken
 * twice per pass, on sessions that already carry a rolling-summary marker.
 */
import {
  liveMarker,
  microInputFor,
  planMicro,
  resolveMicroSettings,
  summaryIndices,
  tailBudget,
} from "@palimpsest/core";
import { microCursor, selectSpan } from "@palimpsest/core/testing";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { microCompact, Palimpsest, type Session } from "@palimpsest/runtime";
import { profileNamed } from "@palimpsest/runtime/testing";
import { openEventStore } from "@palimpsest/store";
import { median, progress } from "./stats.ts";
import { buildSession } from "./workload.ts";

/** One transcript size: median ms per pass of the planner, its parts, and the baseline. */
export interface MicroBudgetResult {
  messages: number;
  /** What the planned pass would do (absorb, defrag, ...), to show it planned real work. */
  plan: string;
  /** planMicro(microInputFor(state, ...)): everything a pass decides before calling the summarizer. */
  planMs: number;
  /** microCursor: a forward scan for the newest summary, stopping at the last live one. */
  cursorScanMs: number;
  /** liveMarker: the same early-stopping scan, then the marker among the summaries found. */
  markerScanMs: number;
  /** selectSpan: head, tail (bounded by the tail budget) and the pinned last turn. */
  spanMs: number;
  /** Two chars/4 re-estimates of every live message (the reference agent's check, twice per pass). */
  baselineMs: number;
}

const CONTEXT_WINDOW = 200_000;
const TAIL = tailBudget(CONTEXT_WINDOW, profileNamed("anthropic").tail);
const SETTINGS = resolveMicroSettings({});
let sink = 0;

function reestimate(session: Session): number {
  let total = 0;
  for (const entry of session.state.live) total += Math.ceil(JSON.stringify(entry.message).length / 4);
  return total;
}

/** Median ms per call of each check; the checks alternate within every repetition (after one warmup). */
function timeSideBySide(calls: number, checks: readonly (() => number)[]): number[] {
  const samples = checks.map((): number[] => []);
  for (let rep = -1; rep < 7; rep++) {
    checks.forEach((check, k) => {
      const start = performance.now();
      for (let i = 0; i < calls; i++) sink += check();
      if (rep >= 0) samples[k]?.push((performance.now() - start) / calls);
    });
  }
  return samples.map(median);
}

/** Loads sessions of each size, gives each a marker with three micro passes, and times the checks on them. */
export async function runMicroBudgetBench(quick: boolean): Promise<MicroBudgetResult[]> {
  const sizes = quick ? [600, 1_200, 10_000] : [600, 1_200, 100_000];
  const store = await openEventStore(":memory:");
  const palimpsest = new Palimpsest({ store, counterFor: createTokenCounter });
  const results: MicroBudgetResult[] = [];
  try {
    for (const messages of sizes) {
      const sessionId = `micro-budget-${messages}`;
      await buildSession(store, sessionId, { messages, compact: false, batch: 1_000 });
      const session = await palimpsest.resume(sessionId);
      // planMicro runs after a completed turn.
      await session.append({ role: "user", content: "next step" }, { turnId: "bench-turn" });
      await session.completeTurn("bench-turn");
      for (let pass = 0; pass < 3; pass++) await microCompact(session, { contextWindow: CONTEXT_WINDOW });
      const state = session.state;
      const view = state.live;
      const input = microInputFor(state, SETTINGS, TAIL);
      const calls = Math.max(3, Math.floor(20_000 / messages));
      const [planMs, cursorScanMs, markerScanMs, spanMs, baselineMs] = timeSideBySide(calls, [
        () => planMicro(microInputFor(session.state, SETTINGS, TAIL)).kind.length,
        () => microCursor(1, summaryIndices(view, state.liveSummaries)),
        () => liveMarker(view, summaryIndices(view, state.liveSummaries))?.index ?? 0,
        () => selectSpan(view, TAIL, input.batchCompactions).tailStart,
        () => reestimate(session) + reestimate(session),
      ]);
      const result = {
        messages,
        plan: planMicro(input).kind,
        planMs: planMs ?? 0,
        cursorScanMs: cursorScanMs ?? 0,
        markerScanMs: markerScanMs ?? 0,
        spanMs: spanMs ?? 0,
        baselineMs: baselineMs ?? 0,
      };
      results.push(result);
      progress(
        `micro-budget ${messages}: plan ${result.planMs.toFixed(4)} ms, baseline ${result.baselineMs.toFixed(3)} ms`,
      );
    }
  } finally {
    await palimpsest.close();
  }
  if (sink < 0) throw new Error("unreachable: keeps the checks from being optimised away");
  return results;
}

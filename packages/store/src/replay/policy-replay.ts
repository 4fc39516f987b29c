import {
  type CachePrices,
  type CompactionObservation,
  type ReplayMetrics,
  ReplayMetricsAccumulator,
} from "@palimpsest/core";
import type { SessionReplay } from "./replay-session.ts";

/** One source session's share of a policy run, without the per-request detail. */
export interface SessionReplaySummary {
  externalId: string;
  turns: number;
  compressionEvents: number;
  overflowTurns: number;
  peakPromptTokens: number;
  /** Request index where the source compacted on its own; null when it never did. */
  realCompactionAt: number | null;
}

/** One policy over every session of a transcript: the metrics, with where it overflowed and each compaction. */
export interface PolicyReplay extends ReplayMetrics {
  profile: string;
  contextWindow: number;
  /** Live tokens at which the policy compacts (null for `none`). */
  threshold: number | null;
  overflowTurns: number;
  peakPromptTokens: number;
  summaryFailures: number;
  compactions: CompactionObservation[];
  sessions: SessionReplaySummary[];
}

/** How a policy run is labelled: the policy, the profile and window it ran with, and its threshold. */
export interface PolicyRunLabel {
  policy: string;
  profile: string;
  contextWindow: number;
  threshold: number | null;
  prices: CachePrices;
}

/**
 * Folds the session replays of one policy into its metrics. Totals add up over sessions; the average
 * gap between compressions is taken over consecutive compactions of the same session only.
 */
export function policyReplay(label: PolicyRunLabel, runs: readonly SessionReplay[]): PolicyReplay {
  const accumulator = new ReplayMetricsAccumulator(label.policy, label.prices);
  for (const run of runs) {
    for (const estimate of run.estimates) accumulator.recordRequest(estimate);
    for (const compaction of run.compactions) accumulator.recordCompaction(compaction);
  }
  const gaps = runs.flatMap((run) =>
    run.compactions.slice(1).map((c, i) => c.requestIndex - (run.compactions[i]?.requestIndex ?? 0)),
  );
  const sessions = runs.map(summarize);
  return {
    ...accumulator.metrics(),
    avgTurnsBetweenCompressions: gaps.length === 0 ? null : gaps.reduce((a, b) => a + b, 0) / gaps.length,
    profile: label.profile,
    contextWindow: label.contextWindow,
    threshold: label.threshold,
    overflowTurns: sessions.reduce((n, s) => n + s.overflowTurns, 0),
    peakPromptTokens: Math.max(0, ...sessions.map((s) => s.peakPromptTokens)),
    summaryFailures: runs.reduce((n, r) => n + r.summaryFailures, 0),
    compactions: runs.flatMap((r) => r.compactions),
    sessions,
  };
}

function summarize(run: SessionReplay): SessionReplaySummary {
  return {
    externalId: run.externalId,
    turns: run.estimates.length,
    compressionEvents: run.compactions.length,
    overflowTurns: run.overflowTurns,
    peakPromptTokens: Math.max(0, ...run.estimates.map((e) => e.promptTokens)),
    realCompactionAt: run.realCompactionAt ?? null,
  };
}

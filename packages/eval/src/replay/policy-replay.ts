import {
  type CachePrices,
  type CompactionObservation,
  FidelityAccumulator,
  type FidelitySummary,
  type ReplayMetrics,
  ReplayMetricsAccumulator,
} from "@palimpsest/core";
import type { JobOutcome, PrecompactMiss, PrecompactStats } from "@palimpsest/runtime";
import { breakEvenOverSessions, breakEvenPass } from "./break-even.ts";
import type { SyncCompaction } from "./compaction-step.ts";
import type { ReplayCompaction } from "./observe-micro.ts";
import type { MeasuredCompaction, SessionReplay } from "./replay-session.ts";

/** One source session's share of a policy run, without the per-request detail. */
export interface SessionReplaySummary {
  externalId: string;
  turns: number;
  compressionEvents: number;
  overflowTurns: number;
  peakPromptTokens: number;
  /** Request index where the source compacted on its own; null when it never did. */
  realCompactionAt: number | null;
  /** Committed micro passes (absorbs and defrags) of this session. */
  microPasses: number;
  /** See breakEvenPass: null without micro passes or when the session never broke even. */
  breakEvenPass: number | null;
}

/** Committed compactions of each kind. */
export type CompactionCounts = Record<ReplayCompaction["kind"], number>;

/**
 * One policy over every session of a transcript: the metrics, with where it overflowed and each compaction.
 * Every committed supersede counts as a compression event (a micro absorb and a defrag too) and each micro
 * pass as one summarizer call; `summaryEvents` and `pruneOnlyToFullRatio` count batch compactions only.
 */
export interface PolicyReplay extends ReplayMetrics, PrecompactFigures {
  profile: string;
  contextWindow: number;
  /** Live tokens at which the batch policy compacts (null for `none` and `micro`). */
  threshold: number | null;
  overflowTurns: number;
  /**
   * The sessions' floorCost summed: what no policy that sends every message once whole can cost less than
   * (the same for every policy; a runtime that trims outputs on append may go below it).
   */
  floorCost: number;
  peakPromptTokens: number;
  summaryFailures: number;
  eventsByKind: CompactionCounts;
  /** Cache breaks per provider request. */
  cacheBreaksPerTurn: number;
  /** Committed micro passes: absorbs plus defrags. */
  microPasses: number;
  /** Sum of tokensBefore − tokensAfter over the micro passes (negative: they added tokens). */
  microTokensSavedTotal: number;
  /**
   * Per session, the smallest 1-based micro pass k after which the cumulative saving of the session's
   * micro passes is ≥ 0 at every later pass too; over sessions, the largest. Null without micro passes
   * or when a session ended below zero.
   */
  breakEvenPass: number | null;
  compactions: MeasuredCompaction[];
  sessions: SessionReplaySummary[];
  /**
   * What the prompts kept (docs/fidelity.md): the mean recall over requests, each kind apart, and over the
   * compactions, what they removed, what their replacements kept and their size against what they removed.
   */
  fidelity: FidelitySummary;
  /** Every committed batch compaction's synchronous time (ms, start of the call to its commit), marked when it was a hit. */
  syncCompactionMs: SyncCompaction[];
}

/** What background pre-compaction did in a policy run (`replay --precompact`). */
export interface PrecompactFigures {
  /** Whether background pre-compaction ran (`--precompact`); the other figures are zero without it. */
  precompact: boolean;
  /** Batch compactions that used a background candidate. */
  precompactHits: number;
  /** Due summaries that could not, by reason (`no-candidate`, `prefix-changed`, `span-changed`, …). */
  precompactMisses: Partial<Record<PrecompactMiss, number>>;
  /** Σ over hits of (cold compaction of the same view − the hit's commit), the cold summary measured. */
  precompactSavedMs: number;
  /** Background summarization time that never reached a commit (discarded, replaced or missed candidates). */
  precompactWastedMs: number;
  /** Candidate age at use over the hits (ms); null without hits. */
  candidateAgeMs: { mean: number; max: number } | null;
  /** Background jobs by outcome (stored, fresh, skipped, discarded, cancelled, failed). */
  precompactJobs: Partial<Record<JobOutcome, number>>;
}

/** How a policy run is labelled: the run's name, the profile and window it ran with, and its threshold. */
export interface PolicyRunLabel {
  policy: string;
  profile: string;
  contextWindow: number;
  threshold: number | null;
  /** Prices of the summarizer's calls (input and output); each request is billed at its estimate's own cost. */
  summarizerPrices: CachePrices;
  /** The run's pre-compaction totals, when it ran with pre-compaction. */
  precompact?: PrecompactStats;
}

/**
 * Folds the session replays of one policy into its metrics. Totals add up over sessions; the average
 * gap between compressions is taken over consecutive compactions of the same session only.
 */
export function policyReplay(label: PolicyRunLabel, runs: readonly SessionReplay[]): PolicyReplay {
  const accumulator = new ReplayMetricsAccumulator(label.policy, label.summarizerPrices);
  for (const run of runs) {
    for (const estimate of run.estimates) accumulator.recordRequest(estimate);
    for (const compaction of run.compactions)
      accumulator.recordCompaction(billed(compaction), compaction.summarizerRequest);
  }
  const gaps = runs.flatMap((run) =>
    run.compactions.slice(1).map((c, i) => c.requestIndex - (run.compactions[i]?.requestIndex ?? 0)),
  );
  const sessions = runs.map(summarize);
  const compactions = runs.flatMap((r) => r.compactions);
  const eventsByKind = countKinds(compactions);
  const metrics = accumulator.metrics();
  return {
    ...metrics,
    summaryEvents: eventsByKind.summary,
    pruneOnlyToFullRatio: eventsByKind.summary === 0 ? null : eventsByKind.prune / eventsByKind.summary,
    avgTurnsBetweenCompressions: gaps.length === 0 ? null : gaps.reduce((a, b) => a + b, 0) / gaps.length,
    profile: label.profile,
    contextWindow: label.contextWindow,
    threshold: label.threshold,
    overflowTurns: sessions.reduce((n, s) => n + s.overflowTurns, 0),
    floorCost: runs.reduce((sum, r) => sum + r.floorCost, 0),
    peakPromptTokens: Math.max(0, ...sessions.map((s) => s.peakPromptTokens)),
    summaryFailures: runs.reduce((n, r) => n + r.summaryFailures, 0),
    eventsByKind,
    cacheBreaksPerTurn: metrics.turns === 0 ? 0 : metrics.cacheBreaks / metrics.turns,
    microPasses: eventsByKind.micro + eventsByKind.defrag,
    microTokensSavedTotal: runs.flatMap(microSavings).reduce((a, b) => a + b, 0),
    breakEvenPass: breakEvenOverSessions(runs.map(microSavings)),
    compactions,
    sessions,
    syncCompactionMs: runs.flatMap((r) => r.syncCompactions),
    fidelity: fidelityOf(runs),
    ...precompactFigures(label.precompact),
  };
}

/** The fidelity of a policy's session replays, pooled: every request's recall and every compaction's keep. */
function fidelityOf(runs: readonly SessionReplay[]): FidelitySummary {
  const accumulator = new FidelityAccumulator();
  for (const run of runs) {
    for (const recall of run.recalls) accumulator.recordRequest(recall);
    for (const compaction of run.compactions) accumulator.recordCompaction(compaction.fidelity);
    accumulator.recordHeld(run.held);
  }
  return accumulator.summary();
}

/** The pre-compaction figures of a run from its scheduler's totals (zeros when it ran without). */
function precompactFigures(stats: PrecompactStats | undefined): PrecompactFigures {
  const ms = (n: number): number => Math.round(n * 1_000) / 1_000;
  if (stats === undefined) {
    return {
      precompact: false,
      precompactHits: 0,
      precompactMisses: {},
      precompactSavedMs: 0,
      precompactWastedMs: 0,
      candidateAgeMs: null,
      precompactJobs: {},
    };
  }
  const age = stats.candidateAgeMs;
  return {
    precompact: true,
    precompactHits: stats.hits,
    precompactMisses: stats.misses,
    precompactSavedMs: ms(stats.savedMs),
    precompactWastedMs: ms(stats.wastedMs),
    candidateAgeMs: stats.hits === 0 ? null : { mean: ms(age.total / stats.hits), max: ms(age.max) },
    precompactJobs: stats.jobs,
  };
}

/** A compaction as the metrics bill it: a micro absorb or defrag is one summarizer call, like a summary. */
function billed(compaction: ReplayCompaction): CompactionObservation {
  return { ...compaction, kind: compaction.kind === "prune" ? "prune" : "summary" };
}

function countKinds(compactions: readonly ReplayCompaction[]): CompactionCounts {
  const counts: CompactionCounts = { summary: 0, prune: 0, micro: 0, defrag: 0 };
  for (const c of compactions) counts[c.kind] += 1;
  return counts;
}

/** The saving of each committed micro pass of a session, in order. */
function microSavings(run: SessionReplay): number[] {
  return run.compactions.filter(isMicro).map((c) => c.tokensBefore - c.tokensAfter);
}

function isMicro(compaction: ReplayCompaction): boolean {
  return compaction.kind === "micro" || compaction.kind === "defrag";
}

function summarize(run: SessionReplay): SessionReplaySummary {
  return {
    externalId: run.externalId,
    turns: run.estimates.length,
    compressionEvents: run.compactions.length,
    overflowTurns: run.overflowTurns,
    peakPromptTokens: Math.max(0, ...run.estimates.map((e) => e.promptTokens)),
    realCompactionAt: run.realCompactionAt ?? null,
    microPasses: run.compactions.filter(isMicro).length,
    breakEvenPass: breakEvenPass(microSavings(run)),
  };
}

import { definedFields } from "../defined-fields.ts";
import type { PrecompactMissReason, TelemetryLine, TelemetryOutcome } from "./telemetry-line.ts";

/** Mean, median and 95th percentile (nearest rank) of pass durations, in milliseconds. */
export interface DurationStats {
  mean: number;
  p50: number;
  p95: number;
}

/** What a set of passes adds up to; `null` where no pass carried the measure. */
export interface TelemetrySummary {
  passes: number;
  outcomes: Record<TelemetryOutcome, number>;
  /** Net Σ (tokensBefore − tokensAfter): negative if the passes grew the view. */
  tokensSaved: number;
  /** Mean tokens of the exchanges micro passes absorbed. */
  meanExchangeTokens: number | null;
  durationMs: DurationStats | null;
  /** Background pre-compaction, present only when some line carries it. */
  precompact?: PrecompactSummary;
}

/** Pre-compaction over a set of passes: hits, misses by reason class, time saved and wasted, candidate age. */
export interface PrecompactSummary {
  hits: number;
  misses: Partial<Record<PrecompactMissReason, number>>;
  /** Σ savedMs over the hits that carry it. */
  savedMs: number;
  /** Σ wastedMs over the lines that carry it. */
  wastedMs: number;
  /** Candidate age at use over the hits that carry it; null when none does. */
  candidateAgeMs: { mean: number; max: number } | null;
}

/** The report over many lines: the overall summary, and per session (first-seen order) when asked. */
export interface TelemetryReport extends TelemetrySummary {
  sessions: number;
  bySession?: (TelemetrySummary & { sessionId: string })[];
}

/** Options of the aggregation. */
export interface AggregateTelemetryOptions {
  bySession?: boolean;
}

/** Aggregates telemetry lines for `palimpsest report`: passes, outcome mix, net tokens saved, exchange size, durations. */
export function aggregateTelemetry(
  lines: readonly TelemetryLine[],
  options: AggregateTelemetryOptions = {},
): TelemetryReport {
  const groups = new Map<string, TelemetryLine[]>();
  for (const line of lines) groups.set(line.sessionId, [...(groups.get(line.sessionId) ?? []), line]);
  const report: TelemetryReport = { ...summarize(lines), sessions: groups.size };
  if (options.bySession === true) {
    report.bySession = [...groups].map(([sessionId, own]) => ({ sessionId, ...summarize(own) }));
  }
  return report;
}

function summarize(lines: readonly TelemetryLine[]): TelemetrySummary {
  const outcomes: Record<TelemetryOutcome, number> = {
    absorbed: 0,
    defragged: 0,
    compacted: 0,
    skipped: 0,
    failed: 0,
    noop: 0,
  };
  for (const line of lines) outcomes[line.outcome] += 1;
  const exchanges = lines.flatMap((l) => (l.exchangeTokens === undefined ? [] : [l.exchangeTokens]));
  const durations = lines.flatMap((l) => (l.durationMs === undefined ? [] : [l.durationMs])).sort((a, b) => a - b);
  const precompact = summarizePrecompact(lines);
  return {
    passes: lines.length,
    outcomes,
    tokensSaved: lines.reduce((n, l) => n - l.delta, 0),
    meanExchangeTokens: exchanges.length === 0 ? null : round(mean(exchanges)),
    durationMs:
      durations.length === 0
        ? null
        : { mean: round(mean(durations)), p50: nearestRank(durations, 0.5), p95: nearestRank(durations, 0.95) },
    ...definedFields({ precompact }),
  };
}

function summarizePrecompact(lines: readonly TelemetryLine[]): PrecompactSummary | undefined {
  const carrying = lines.filter((l) => l.precompact !== undefined || l.wastedMs !== undefined);
  if (carrying.length === 0) return undefined;
  const misses: PrecompactSummary["misses"] = {};
  for (const l of carrying) {
    if (l.precompact === "miss" && l.precompactMiss !== undefined) {
      misses[l.precompactMiss] = (misses[l.precompactMiss] ?? 0) + 1;
    }
  }
  const ages = carrying.flatMap((l) => (l.candidateAgeMs === undefined ? [] : [l.candidateAgeMs]));
  return {
    hits: carrying.filter((l) => l.precompact === "hit").length,
    misses,
    savedMs: round(carrying.reduce((n, l) => n + (l.savedMs ?? 0), 0)),
    wastedMs: round(carrying.reduce((n, l) => n + (l.wastedMs ?? 0), 0)),
    candidateAgeMs: ages.length === 0 ? null : { mean: round(mean(ages)), max: Math.max(...ages) },
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The smallest value with at least `p` of the sorted values at or below it. */
function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

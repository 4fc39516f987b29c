import type { CompactionPoint, ReportSeries, RequestPoint, SeriesFigures } from "./report-data.ts";

/** The figures of a series folded from a stored log: the cache model's verdicts and compactions of its points. */
export function seriesFigures(
  requests: readonly RequestPoint[],
  compactions: readonly CompactionPoint[],
): SeriesFigures {
  return {
    turns: requests.length,
    compactions: compactions.length,
    tokensReclaimed: sum(compactions.map((c) => c.tokensBefore - c.tokensAfter)),
    peakPromptTokens: Math.max(0, ...requests.map((r) => r.viewTokens)),
    cacheBreaks: requests.filter((r) => r.model.cacheBreak).length,
    cachedTokens: sum(requests.map((r) => r.model.cachedTokens)),
    cacheWriteTokens: sum(requests.map((r) => r.model.cacheWriteTokens)),
  };
}

/** What the provider's usage says of a series' requests: how many carry usage, how many read the cache, and the totals. */
export interface ProviderUsageFigures {
  requests: number;
  cacheHits: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** The provider's usage figures of a series (every table and caption that shows them reads these). */
export function providerUsage(series: ReportSeries): ProviderUsageFigures {
  const known = series.requests.flatMap((r) => (r.real === undefined ? [] : [r.real]));
  return {
    requests: known.length,
    cacheHits: known.filter((r) => r.cacheReadTokens > 0).length,
    cacheReadTokens: sum(known.map((r) => r.cacheReadTokens)),
    cacheWriteTokens: sum(known.map((r) => r.cacheWriteTokens)),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

import type { PrecompactionCandidate, SummaryResult, SupersedeSpec } from "@palimpsest/core";

/** The summarizer's usage as a compaction records it: tokens in and out, and the cache's reads and writes. */
export type SummaryAux = NonNullable<SupersedeSpec["aux"]>;

/** What a summary cost, as its compaction records it (a count the summarizer did not report stays undefined). */
export function summaryAux(result: SummaryResult): SummaryAux {
  return {
    in: result.inputTokens,
    out: result.outputTokens,
    cacheRead: result.cachedInputTokens,
    cacheWrite: result.cacheWriteTokens,
  };
}

/** What a background candidate's summary cost, as stored with it. */
export function candidateAux(candidate: PrecompactionCandidate): SummaryAux {
  return {
    in: candidate.auxTokensIn,
    out: candidate.auxTokensOut,
    cacheRead: candidate.auxTokensCacheRead,
    cacheWrite: candidate.auxTokensCacheWrite,
  };
}

/**
 * Two summaries' usage as one: each count summed over the summaries that reported it, undefined when neither
 * did. A cache count is a share of the input, so the sum has one only when every summary that reported its
 * input reported that count too: one summary's cache reads against both summaries' input would understate it.
 */
export function addAux(a: SummaryAux, b: SummaryAux): SummaryAux {
  const add = (x: number | undefined, y: number | undefined) => (x === undefined ? y : x + (y ?? 0));
  const addCache = (key: "cacheRead" | "cacheWrite") =>
    [a, b].every((aux) => aux.in === undefined || aux[key] !== undefined) ? add(a[key], b[key]) : undefined;
  return {
    in: add(a.in, b.in),
    out: add(a.out, b.out),
    cacheRead: addCache("cacheRead"),
    cacheWrite: addCache("cacheWrite"),
  };
}

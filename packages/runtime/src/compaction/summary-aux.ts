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

/** Two summaries' usage as one: each count summed over the summaries that reported it, undefined when neither did. */
export function addAux(a: SummaryAux, b: SummaryAux): SummaryAux {
  const add = (x: number | undefined, y: number | undefined) => (x === undefined ? y : x + (y ?? 0));
  return {
    in: add(a.in, b.in),
    out: add(a.out, b.out),
    cacheRead: add(a.cacheRead, b.cacheRead),
    cacheWrite: add(a.cacheWrite, b.cacheWrite),
  };
}

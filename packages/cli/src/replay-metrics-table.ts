import type { PolicyReplay } from "@palimpsest/eval";

/**
 * The metrics `replay` prints, one row per policy run: compactions, summarizer calls, the cache model's
 * cached, uncached and written tokens, breaks and cost. Shared by the text table and the HTML report.
 */
export function replayMetricsTable(policies: readonly PolicyReplay[]): {
  header: string[];
  rows: (string | number)[][];
} {
  const fixed = (n: number | null, digits = 1): string => (n === null ? "-" : n.toFixed(digits));
  const header = [
    "policy",
    "turns",
    "events/100",
    "avg gap",
    "aux calls",
    "avg reclaimed",
    "prompt+aux tokens",
    "prune:full",
    "cache breaks",
    "micro passes",
    "micro saved",
    "break-even",
    "cached",
    "uncached",
    "cache writes",
    "cost USD",
    "overflow",
  ];
  const rows = policies.map((p) => [
    p.policy,
    p.turns,
    fixed(p.compressionEventsPer100Turns, 2),
    fixed(p.avgTurnsBetweenCompressions),
    p.auxSummaryCalls,
    fixed(p.avgTokensReclaimedPerEvent, 0),
    p.totalPromptPlusAuxTokens,
    p.pruneOnlyToFullRatio === null ? `${p.pruneEvents}:0` : fixed(p.pruneOnlyToFullRatio, 2),
    p.cacheBreaks,
    p.microPasses,
    p.microTokensSavedTotal,
    p.breakEvenPass ?? "-",
    p.cachedTokens,
    p.uncachedTokens,
    p.cacheWriteTokens,
    p.estimatedCost.toFixed(2),
    p.overflowTurns,
  ]);
  return { header, rows };
}

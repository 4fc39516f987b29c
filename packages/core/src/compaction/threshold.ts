import {
  DEFAULT_TAIL_RULE,
  DEFAULT_THRESHOLD_RULE,
  type RunwayRule,
  type TailRule,
  type ThresholdRule,
} from "./provider-profile.ts";

/**
 * Live tokens at which compaction triggers: `max(floor(0.5 × (context − maxOutput)), 64,000)`, and where
 * the floor binds, at most 85% of the effective window (context − maxOutput). 200K/65,536 → 67,232; 64K → 54,400.
 */
export function compactionThreshold(
  contextWindow: number,
  maxOutputTokens: number,
  rule: ThresholdRule = DEFAULT_THRESHOLD_RULE,
): number {
  const effective = Math.max(0, contextWindow - maxOutputTokens);
  const share = Math.floor(rule.ratio * effective);
  if (share >= rule.floorTokens) return share;
  return Math.min(rule.floorTokens, Math.floor(rule.floorCapRatio * effective));
}

/** Tokens the protected tail may hold: `max(10,000, min(25,000, 2.5% of context))`, never over 20% of context. */
export function tailBudget(contextWindow: number, rule: TailRule = DEFAULT_TAIL_RULE): number {
  const wanted = Math.max(rule.minTokens, Math.min(rule.maxTokens, Math.floor(rule.ratio * contextWindow)));
  return Math.min(wanted, Math.floor(rule.capRatio * contextWindow));
}

/** Where an accepted prune must land: `threshold − max(pruneMinimumTokens, ratio × threshold)`. */
export function runwayTarget(threshold: number, rule: RunwayRule): number {
  return threshold - Math.max(rule.pruneMinimumTokens, Math.floor(rule.ratio * threshold));
}

export {
  type AntiThrashConfig,
  assessBackoff,
  type Backoff,
  type BackoffCompaction,
  type BackoffInput,
  type CompactionHistory,
  DEFAULT_ANTI_THRASH,
  type FailureRecord,
} from "./anti-thrash.ts";
export { ANTI_THRASH_SHAPE, type AntiThrashSettings, resolveAntiThrash } from "./anti-thrash-settings.ts";
export {
  type CompactionCost,
  type CompactionShape,
  cachedHead,
  compactionCost,
  costPerTurnText,
  cycleCostPerTurn,
  isCacheCold,
  optimalCycleTurns,
  promptAfter,
  readPrice,
  writePrice,
} from "./compaction-cost.ts";
export {
  type BaselineSummary,
  costCandidates,
  DEFAULT_TAIL_SHARES,
  type PlannedCandidate,
} from "./cost-candidates.ts";
export {
  type CostCandidate,
  type CostDecision,
  type CostOptimalOptions,
  checkLostFactUsd,
  costOptimalPolicy,
  decideCompaction,
} from "./cost-optimal-policy.ts";
export { derivedId } from "./derived-id.ts";
export { type MicroGate, type MicroGateInput, microBatchGate } from "./micro-cost-gate.ts";
export { type GateOpen, gateCompaction } from "./policy-gate.ts";
export type {
  CompactionPlan,
  CompactionPolicy,
  CountTokens,
  NoPlan,
  PolicyInput,
  PrunePlan,
  SummaryPlan,
} from "./policy-types.ts";
export {
  chooseProfile,
  DEFAULT_PROFILE_NAME,
  describeProfileChoice,
  type ProfileChoice,
  type ProfileClues,
  profileForModel,
} from "./profile-choice.ts";
export {
  ANTHROPIC_PROFILE,
  customProfile,
  DEFAULT_RUNWAY_RULE,
  DEFAULT_TAIL_RULE,
  DEFAULT_THRESHOLD_RULE,
  LOCAL_PROFILE,
  OPENAI_PROFILE,
  PROVIDER_PROFILES,
  type ProfileOverrides,
  type PromptCacheRule,
  type ProviderProfile,
  type RunwayRule,
  type SummaryBudgetRule,
  type TailRule,
  type ThresholdRule,
} from "./provider-profile.ts";
export { type PruneFirstOptions, pruneFirstPolicy } from "./prune-first-policy.ts";
export { type PruneOutcome, planPrune } from "./prune-plan.ts";
export {
  isSummaryEntry,
  leadingSystemTokens,
  middleEntries,
  type SpanOptions,
  type SpanSelection,
  selectSpan,
  spanRun,
} from "./span-selection.ts";
export { type SummaryNeed, summaryNeed } from "./summary-need.ts";
export {
  formatSummaryMessage,
  recallNote,
  SUMMARY_PREFIX,
  SUMMARY_SUFFIX,
  stripSummaryNote,
} from "./summary-note.ts";
export { planSummary, summaryReplacementFor } from "./summary-plan.ts";
export { type PolicyOptions, reached, summaryPolicy } from "./summary-policy.ts";
export { chooseSummaryRole } from "./summary-role.ts";
export { liveTargetTokens, type SupersedeSpec, supersedeFor } from "./supersede-for.ts";
export { compactionThreshold, runwayTarget, tailBudget } from "./threshold.ts";
export {
  danglingDuplicateStubs,
  describeToolRun,
  duplicateReference,
  duplicateStubText,
  stubMessage,
  summarizeArguments,
} from "./tool-stub.ts";
export { planTrim, type TrimConfig, type TrimPlan } from "./trim.ts";
export { turnGrowth } from "./turn-growth.ts";

export { breakEvenOverSessions, breakEvenPass } from "./break-even.ts";
export { cacheRulesForProfile } from "./cache-rules-for-profile.ts";
export {
  type CompactionStep,
  type CompactionStepOptions,
  compactionStep,
  type SyncCompaction,
} from "./compaction-step.ts";
export { observeCompaction } from "./observe-compaction.ts";
export { observeMicro, observeMicroPasses, type ReplayCompaction } from "./observe-micro.ts";
export {
  type CompactionCounts,
  type PolicyReplay,
  type PolicyRunLabel,
  type PrecompactFigures,
  policyReplay,
  type SessionReplaySummary,
} from "./policy-replay.ts";
export { promptMessage, promptMessages, sourcePromptMessage } from "./prompt-messages.ts";
export {
  REPLAY_RUN_NAMES,
  type ReplayPolicy,
  type ReplayRun,
  type ReplayRunName,
  replayRun,
  withMicro,
} from "./replay-policy.ts";
export {
  checkWindow,
  type MeasuredCompaction,
  providerWindow,
  replaySession,
  type SessionReplay,
  type SessionReplayOptions,
  type UsagePair,
} from "./replay-session.ts";
export {
  type ReplayOptions,
  type ReplayProgress,
  replayTranscript,
  type SessionCacheSummary,
  type TranscriptReplay,
} from "./replay-transcript.ts";
export {
  billedModel,
  CacheSimulation,
  type PrefixReset,
  realCost,
  rulesForModel,
  type SessionCacheModel,
  type SimulatedRequest,
  summarizerPrices,
  type TtlSource,
} from "./session-cache-model.ts";
export {
  type CacheModelOptions,
  readSource,
  type SourceReading,
  type SourceRequest,
  sessionCacheModel,
} from "./session-calibration.ts";
export { transcriptProfileChoice } from "./transcript-profile.ts";

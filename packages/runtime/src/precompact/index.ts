export {
  type CompactWithCandidateOptions,
  compactWithCandidate,
  type PrecompactOutcome,
  type PrecompactUse,
} from "./compact-with-candidate.ts";
export {
  type JobReport,
  type PrecompactJobContext,
  type PrecompactRequest,
  runPrecompactJob,
} from "./precompact-job.ts";
export {
  type JobOutcome,
  type PrecompactEvent,
  type PrecompactMiss,
  PrecompactMonitor,
  type PrecompactStats,
} from "./precompact-monitor.ts";
export {
  type PrecompactCompactOptions,
  PrecompactionScheduler,
  type PrecompactSchedulerDeps,
} from "./precompact-scheduler.ts";
export {
  DEFAULT_PRECOMPACT_SETTINGS,
  type PrecompactSettings,
  resolvePrecompactSettings,
} from "./precompact-settings.ts";

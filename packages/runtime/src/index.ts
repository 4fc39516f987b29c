export { type AfterTurnOutcome, type AfterTurnPlan, afterTurnStep } from "./compaction/after-turn-step.ts";
export type { RequestTimes } from "./compaction/batch-policy-input.ts";
export { type CompactOptions, type CompactOutcome, compact } from "./compaction/compact.ts";
export { type CompactRangeRequest, compactRange } from "./compaction/compact-range.ts";
export {
  type CompactionBudget,
  profileChoiceFor,
  profileNamed,
  resolveProfile,
} from "./compaction/compaction-budget.ts";
export {
  type CompactionSettings,
  type PolicyName,
  type ResolvedCompaction,
  resolveCompaction,
} from "./compaction/compaction-settings.ts";
export {
  type MicroBatchOptions,
  type MicroBatchOutcome,
  type MicroBatchPass,
  microBatch,
} from "./compaction/micro-batch.ts";
export { type MicroCompactOptions, type MicroOutcome, microCompact } from "./compaction/micro-compact.ts";
export {
  costBatchedSchedule,
  type MicroSchedule,
  microScheduleOf,
  onePassSchedule,
} from "./compaction/micro-schedule.ts";
export type { CreatePolicyOptions, PolicyDefinition } from "./compaction/policies/policy-definition.ts";
export {
  defaultPolicyName,
  isPolicyName,
  POLICIES,
  POLICY_NAMES,
  policyFor,
  policyNamed,
} from "./compaction/policies/registry.ts";
export {
  type ImportedLog,
  type ImportedSessionResult,
  type ImportOptions,
  type ImportProgress,
  type ImportTarget,
  importedSessionId,
  importSession,
  importSessions,
} from "./import/import-sessions.ts";
export {
  DEFAULT_FOLD_DELAY_MS,
  DEFAULT_SETTLE_MS,
  emptyFoldMemory,
  eraseLeftovers,
  eraseMirrorKey,
  eraseWithMirror,
  foldMirrorKey,
  type MirrorErasure,
  MirrorFolder,
  type MirrorFolderOptions,
  type MirrorFoldMemory,
  type MirrorFoldOptions,
  mirrorSessionId,
} from "./mirror-fold/index.ts";
export { type HandoffRuntime, Handoffs, type RequestHandoffOptions } from "./palimpsest/index.ts";
export { type OpenPalimpsestOptions, openPalimpsest } from "./palimpsest/open-palimpsest.ts";
export {
  type AdapterSessionOptions,
  checkAdapterOptions,
  openRuntimeSession,
  type RuntimeSession,
  type RuntimeSessionOptions,
} from "./palimpsest/open-runtime-session.ts";
export {
  type ForkOptions,
  type HandOffOptions,
  Palimpsest,
  type RuntimeDeps,
  type RuntimeStore,
  type StartSessionOptions,
} from "./palimpsest/palimpsest.ts";
export { type NamedSessionLookup, sessionByIdOrName } from "./palimpsest/session-by-name.ts";
export {
  type CompactWithCandidateOptions,
  compactWithCandidate,
  DEFAULT_PRECOMPACT_SETTINGS,
  type JobOutcome,
  type JobReport,
  type PrecompactEvent,
  PrecompactionScheduler,
  type PrecompactJobContext,
  type PrecompactMiss,
  PrecompactMonitor,
  type PrecompactOutcome,
  type PrecompactRequest,
  type PrecompactSchedulerDeps,
  type PrecompactSettings,
  type PrecompactStats,
  type PrecompactUse,
  resolvePrecompactSettings,
  runPrecompactJob,
} from "./precompact/index.ts";
export { DEFAULT_CONTENTION_TIMEOUT_MS } from "./runtime/contention.ts";
export { type LoadedSession, loadSession, saveSnapshot } from "./runtime/load-session.ts";
export { type MessageInput, toMessage } from "./runtime/message-input.ts";
export { prepareRewrite, type RewriteCommands, type RewriteRequest } from "./runtime/rewrite.ts";
export { type AppendMessagesOptions, Session, type SessionContext } from "./runtime/session.ts";
export type { BatchedWrite, SessionWrite, WritePlan } from "./runtime/session-write.ts";
export {
  callbackSink,
  fileJsonSink,
  type PrecompactTelemetry,
  sessionThreshold,
  stderrJsonSink,
  TelemetryRecorder,
  type TelemetryRecorderOptions,
  type TelemetrySink,
} from "./telemetry/index.ts";

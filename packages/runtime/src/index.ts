export { type AfterTurnOutcome, type AfterTurnPlan, afterTurnStep } from "./compaction/after-turn-step.ts";
export type { RequestTimes } from "./compaction/batch-policy-input.ts";
export { type CompactOptions, type CompactOutcome, compact } from "./compaction/compact.ts";
export { type CompactRangeRequest, compactRange } from "./compaction/compact-range.ts";
export {
  type CompactionBudget,
  profileChoiceFor,
  resolveProfile,
} from "./compaction/compaction-budget.ts";
export {
  COMPACTION_SETTINGS_SHAPE,
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
export { POLICIES, POLICY_NAMES, policyFor } from "./compaction/policies/registry.ts";
export {
  type ImportedSessionResult,
  type ImportOptions,
  type ImportProgress,
  importSessions,
} from "./import/import-sessions.ts";
export {
  eraseLeftovers,
  eraseMirrorKey,
  eraseWithMirror,
  MIRROR_FOLDER_OPTION_SHAPE,
  type MirrorErasure,
  MirrorFolder,
  type MirrorFolderOptions,
} from "./mirror-fold/index.ts";
export { type HandoffRuntime, Handoffs, type RequestHandoffOptions } from "./palimpsest/index.ts";
export { type OpenPalimpsestOptions, openPalimpsest, openWarmedStore } from "./palimpsest/open-palimpsest.ts";
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
  type RuntimeOptions,
  type StartSessionOptions,
} from "./palimpsest/palimpsest.ts";
export { type NamedSessionLookup, sessionByIdOrName } from "./palimpsest/session-by-name.ts";
export {
  type CompactWithCandidateOptions,
  type JobOutcome,
  type PrecompactCompactOptions,
  type PrecompactEvent,
  PrecompactionScheduler,
  type PrecompactMiss,
  PrecompactMonitor,
  type PrecompactOutcome,
  type PrecompactSchedulerDeps,
  type PrecompactSettings,
  type PrecompactStats,
  type PrecompactUse,
} from "./precompact/index.ts";
export { type LoadedSession, loadSession, saveSnapshot } from "./runtime/load-session.ts";
export type { MessageInput } from "./runtime/message-input.ts";
export {
  DEFAULT_RECALL_LIMIT,
  MAX_RECALL_LIMIT,
  type RecalledMessage,
  type RecallOptions,
  type RecallResult,
} from "./runtime/recall.ts";
export {
  DEFAULT_TOOL_TOKENS,
  EXPAND_INPUT,
  type McpToolResult,
  mcpToolResult,
  RECALL_INPUT,
  type RecallTool,
  type RecallToolOptions,
  recallTools,
  refusalText,
  type ToolJsonSchema,
} from "./runtime/recall-tools.ts";
export type { RewriteRequest } from "./runtime/rewrite.ts";
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

export * from "./audit/index.ts";
export * from "./compaction/compact.ts";
export * from "./compaction/compact-range.ts";
export {
  type CompactionBudget,
  profileChoiceFor,
  profileNamed,
  resolveProfile,
} from "./compaction/compaction-budget.ts";
export * from "./compaction/compaction-settings.ts";
export * from "./compaction/micro-batch.ts";
export * from "./compaction/micro-compact.ts";
export { costBatchedSchedule, type MicroSchedule, onePassSchedule } from "./compaction/micro-schedule.ts";
export type { CreatePolicyOptions, PolicyDefinition } from "./compaction/policies/policy-definition.ts";
export {
  defaultPolicyName,
  isPolicyName,
  POLICIES,
  POLICY_NAMES,
  policyNamed,
} from "./compaction/policies/registry.ts";
export * from "./engine/index.ts";
export * from "./handoff/index.ts";
export * from "./import/import-sessions.ts";
export * from "./mirror/index.ts";
export * from "./mirror-fold/index.ts";
export { DEFAULT_DATABASE_PATH, openEventStore } from "./open/open-event-store.ts";
export type { OpenedEventStore } from "./open/opened-event-store.ts";
export * from "./palimpsest/index.ts";
export * from "./palimpsest/open-palimpsest.ts";
export * from "./palimpsest/open-runtime-session.ts";
export * from "./palimpsest/palimpsest.ts";
export * from "./palimpsest/session-by-name.ts";
export * from "./precompact/index.ts";
export * from "./replay/index.ts";
export { DEFAULT_CONTENTION_TIMEOUT_MS } from "./runtime/contention.ts";
export * from "./runtime/load-session.ts";
export * from "./runtime/message-input.ts";
export * from "./runtime/rewrite.ts";
export * from "./runtime/session.ts";
export type { BatchedWrite, SessionWrite, WritePlan } from "./runtime/session-write.ts";
export * from "./telemetry/index.ts";

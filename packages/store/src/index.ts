export {
  AUDIT_ROW_TABLES,
  type AuditDifference,
  type AuditedCompaction,
  type AuditOptions,
  type AuditProgress,
  AuditReadModels,
  type AuditRowTable,
  type AuditStore,
  type CatchUpOptions,
  type CatchUpResult,
  COMPACTION_GROUPS,
  type CompactionFilter,
  type CompactionGroup,
  type CompactionTotals,
  type CompactionTrail,
  FAILURE_GROUPS,
  type FailureFilter,
  type FailureGroup,
  type FailureTotals,
  type Lineage,
  type LineageNode,
  type LineageTree,
  type MessageTrail,
  type RebuildReport,
  type ReplacementRef,
} from "./audit/index.ts";
export { type LocalKeyringOptions, openLocalKeyring } from "./encryption/local-keyring.ts";
export {
  DEFAULT_PURGE_WAIT_MS,
  DEFAULT_SESSION_PAGE_SIZE,
  DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
  DEFAULT_SQLITE_POLL_MS,
  DEFAULT_TENANT,
  type Engine,
  EVENT_STORE_OPTION_SHAPE,
  MAX_SESSION_PAGE_SIZE,
  type OpenEventStoreOptions,
  type SessionCursor,
  type SessionPage,
  type SessionPageOptions,
  type WarmUpAppend,
} from "./engine/index.ts";
export { type MirrorAppendResult, type MirrorEntryInput, MirrorLog, type MirrorSummarize } from "./mirror/index.ts";
export { DEFAULT_DATABASE_PATH, openEventStore } from "./open/open-event-store.ts";
export type { OpenedEventStore } from "./open/opened-event-store.ts";
export {
  MAX_PARTITIONS,
  PARTITIONED_TABLES,
  type PartitionedTable,
  type PartitionLogOptions,
  type PartitionLogResult,
  partitionLog,
} from "./open/partition-log.ts";

export type { CompactionFilter, FailureFilter } from "./audit-filters.ts";
export {
  AUDIT_VISIBILITY_WAIT_MS,
  type AuditProgress,
  type CatchUpOptions,
  type CatchUpResult,
} from "./audit-projector.ts";
export { type AuditOptions, AuditReadModels } from "./audit-read-models.ts";
export type { AuditDifference, RebuildReport } from "./audit-rebuild.ts";
export { AUDIT_ROW_TABLES, type AuditRowTable } from "./audit-rows.ts";
export type { AuditStore } from "./audit-source.ts";
export {
  type AuditedCompaction,
  COMPACTION_GROUPS,
  type CompactionGroup,
  type CompactionTotals,
  FAILURE_GROUPS,
  type FailureGroup,
  type FailureTotals,
} from "./compaction-queries.ts";
export type { Lineage, LineageNode, LineageTree } from "./lineage-queries.ts";
export type { CompactionTrail, MessageTrail, ReplacementRef } from "./message-queries.ts";

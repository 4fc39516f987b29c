export { HandoffQueue } from "./handoff-queue.ts";
export type { ClaimOptions, HandoffQueuePort } from "./handoff-queue-port.ts";
export { type Handoff, type HandoffClaim, type HandoffClaimRef, type HandoffRow, toHandoff } from "./handoff-record.ts";
export type { HandoffStatus } from "./handoff-table.ts";
export type { Clock } from "./handoff-time.ts";

export type { CandidateStore } from "./candidate-store.ts";
export type { ChangeFeed, ChangeListener, StoreChange } from "./change-feed.ts";
export type {
  AppendOptions,
  AppendResult,
  EraseOptions,
  ErasureResult,
  EventStore,
  ExpectedVersion,
  GlobalCheckpoint,
  GlobalPage,
  KeyedBatch,
  PurgedRelation,
  PurgeOptions,
  PurgeResult,
  ReadAllOptions,
  ReadStreamOptions,
  SessionSummary,
} from "./event-store.ts";
export type {
  ClaimOptions,
  Clock,
  Finish,
  Handoff,
  HandoffClaim,
  HandoffClaimRef,
  HandoffQueuePort,
  HandoffRecord,
  HandoffStatus,
  NewHandoff,
} from "./handoff-queue.ts";
export type { Keyring, SessionKeyRef } from "./keyring.ts";
export type { MessageSearch, MessageSearchHit, MessageSearchQuery } from "./message-search.ts";
export type { MirrorLogPort } from "./mirror-log.ts";
export type { RuntimeStore } from "./runtime-store.ts";
export type { Snapshot, SnapshotStore } from "./snapshot-store.ts";
export type { Summarizer, SummaryConversation, SummaryRequest, SummaryResult } from "./summarizer.ts";
export type { TokenCounter } from "./token-counter.ts";

export {
  type DroppedKey,
  type MirrorAppendResult,
  type MirrorDatabase,
  type MirrorEntryInput,
  type MirrorKey,
  type MirrorKeyRow,
  MirrorLog,
  type MirrorSummarize,
} from "./mirror-log.ts";

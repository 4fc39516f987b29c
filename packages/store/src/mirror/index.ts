export { checkBytes, MIRROR_LIMITS, utf8Bytes } from "./mirror-limits.ts";
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
export { mirrorUuidKey, uuidOfMirrorKey } from "./mirror-uuid.ts";

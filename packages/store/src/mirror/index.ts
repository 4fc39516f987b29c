export {
  type MirrorAppendResult,
  type MirrorEntryInput,
  MirrorLog,
  type MirrorSummarize,
} from "./mirror-log.ts";

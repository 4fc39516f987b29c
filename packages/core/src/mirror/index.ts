export type { DroppedKey, MirrorEntryRow, MirrorKey, MirrorKeyRow } from "./mirror-key.ts";
export { checkBytes, MIRROR_LIMITS, utf8Bytes } from "./mirror-limits.ts";
export { mirrorUuidKey, uuidOfMirrorKey } from "./mirror-uuid.ts";

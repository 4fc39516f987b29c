export { eraseLeftovers, eraseMirrorKey, eraseWithMirror, type MirrorErasure } from "./mirror-erase.ts";
export { foldMirrorKey, mirrorSessionId } from "./mirror-fold.ts";
export { emptyFoldMemory } from "./mirror-fold-memory.ts";
export {
  DEFAULT_FOLD_DELAY_MS,
  DEFAULT_SETTLE_MS,
  MIRROR_FOLDER_OPTION_SHAPE,
  MirrorFolder,
  type MirrorFolderOptions,
} from "./mirror-folder.ts";

/**
 * For this repository's tests and for the tests of other implementations: internals
 * the tests pin (helpers, constants, intermediate steps) that a user of the package does not need. Not a stable
 * API: what this entry point exports may change in any release.
 */
export { profileNamed } from "./compaction/compaction-budget.ts";
export { defaultPolicyName, policyNamed } from "./compaction/policies/registry.ts";
export { type ImportedLog, type ImportTarget, importedSessionId, importSession } from "./import/import-sessions.ts";
export { emptyFoldMemory, foldMirrorKey, mirrorSessionId } from "./mirror-fold/index.ts";

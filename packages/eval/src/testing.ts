/**
 * For this repository's tests and for the tests of other implementations: internals
 * the tests pin (helpers, constants, intermediate steps) that a user of the package does not need. Not a stable
 * API: what this entry point exports may change in any release.
 */
export {
  breakEvenOverSessions,
  CacheSimulation,
  type CompactionStepOptions,
  type PolicyRunLabel,
  policyReplay,
  readSource,
  replaySession,
  type SessionReplayOptions,
  type SimulatedRequest,
  type SourceReading,
  type SourceRequest,
  sessionCacheModel,
} from "./replay/index.ts";

/**
 * For this repository's tests and for the tests of other implementations of @palimpsest/core's ports: internals
 * the tests pin (helpers, constants, intermediate steps) that a user of the package does not need. Not a stable
 * API: what this entry point exports may change in any release.
 */
export { breakpointIndexes, cacheCost, IDENTITY_CALIBRATION } from "./cache-model/index.ts";
export {
  ANTHROPIC_PROFILE,
  assessBackoff,
  type Backoff,
  type BackoffInput,
  type BaselineSummary,
  type CompactionCost,
  type CostCandidate,
  type CostDecision,
  compactionCost,
  costCandidates,
  costPerTurnText,
  cycleCostPerTurn,
  DEFAULT_RUNWAY_RULE,
  danglingDuplicateStubs,
  decideCompaction,
  duplicateReference,
  duplicateStubText,
  formatSummaryMessage,
  LOCAL_PROFILE,
  middleEntries,
  OPENAI_PROFILE,
  optimalCycleTurns,
  type PlannedCandidate,
  profileForModel,
  recallNote,
  SUMMARY_PREFIX,
  SUMMARY_SUFFIX,
  type SummaryNeed,
  selectSpan,
  stripSummaryNote,
  summarizeArguments,
  summaryNeed,
  turnGrowth,
} from "./compaction/index.ts";
export { conversationItems, FidelityExtractor, ReplacementText } from "./fidelity/index.ts";
export { detectFormat, NO_RESULT_TEXT, parseClaudeCode, TranscriptBuilder } from "./importers/index.ts";
export { withinJsonDepth } from "./input/index.ts";
export { checkUniqueIds } from "./invariants/index.ts";
export {
  argumentPaths,
  commandLine,
  isFileContent,
  isFileListing,
  isFileRead,
  isHarnessText,
  type Role,
  requestText,
  shellCommand,
  toolArguments,
  toolKind,
} from "./messages/index.ts";
export { type Exchange, microCursor } from "./micro/index.ts";
export { compactionKey, turnDoneKey, turnKey } from "./session/index.ts";
export { capText, estimateTokens, OFFLINE_MODEL, REDACTED } from "./summary/index.ts";

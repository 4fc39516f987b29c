export {
  type AuditFacts,
  addAuditFacts,
  type CompactionFact,
  emptyAuditFacts,
  type FailureFact,
  type HandOffFact,
  type ReplacementFact,
  type SessionFact,
  type SupersessionFact,
} from "./audit/audit-facts.ts";
export {
  type AnthropicBlock,
  type AnthropicCacheControl,
  type AnthropicMessage,
  type AnthropicRequest,
  type AnthropicRequestOptions,
  type AnthropicTextBlock,
  CONTINUATION_PLACEHOLDER,
  toAnthropicRequest,
} from "./export/anthropic.ts";
export { checkAnthropicRequest, checkOpenAIRequest, type RequestCheckOptions } from "./export/check-request.ts";
export { type OpenAIContentPart, type OpenAIMessage, toOpenAIMessages } from "./export/openai.ts";
export { type AnsweredView, withoutUnansweredCalls } from "./export/unanswered-calls.ts";
export { type CompactionRecord, compactionHistory } from "./history/compaction-history.ts";
export { type ExpandedMessage, expandCompaction } from "./history/expand.ts";
export { type ActiveView, activeView } from "./view/active-view.ts";
export { type ResumeState, resumeState } from "./view/resume-state.ts";
export { type AsOf, type ViewAsOf, viewAsOf } from "./view/view-as-of.ts";

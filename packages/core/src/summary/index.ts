export { capText } from "../messages/cut.ts";
export { estimateTokens } from "../messages/estimate-tokens.ts";
export { buildConversationInstruction, conversationEnd } from "./conversation-prompt.ts";
export { OFFLINE_MODEL, OfflineSummarizer, type OfflineSummarizerOptions } from "./offline.ts";
export { buildSummaryPrompt, SUMMARY_PROMPT_VERSION, SUMMARY_SYSTEM_PROMPT } from "./prompt.ts";
export { REDACTED, redactSecrets } from "./redact.ts";
export { DEFAULT_SUMMARY_CAPS, type SummaryCaps, serializeForSummary } from "./serialize.ts";
export { checkSummary } from "./summary-check.ts";
export { SUMMARY_SECTIONS } from "./summary-format.ts";

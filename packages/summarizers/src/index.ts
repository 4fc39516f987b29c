/** Milliseconds a provider asked to wait (`retry-after-ms`, else `retry-after`): core's, kept here for existing imports. */
export { retryAfterMs } from "@palimpsest/core";
export { type AnthropicOptions, AnthropicSummarizer } from "./anthropic.ts";
export type {
  AnthropicConversationRequest,
  ConversationInput,
  ConversationOption,
  OpenAIConversationRequest,
} from "./conversation-request.ts";
export { type OpenAICompatibleOptions, OpenAICompatibleSummarizer } from "./openai.ts";
export type { ProviderSummarizerOptions } from "./provider-options.ts";

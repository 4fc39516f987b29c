export { type AnthropicOptions, AnthropicSummarizer } from "./anthropic.ts";
export type {
  AnthropicConversationRequest,
  ConversationInput,
  ConversationOption,
  OpenAIConversationRequest,
} from "./conversation-request.ts";
export { retryAfterMs } from "./failure.ts";
export { type OpenAICompatibleOptions, OpenAICompatibleSummarizer } from "./openai.ts";
export type { ProviderSummarizerOptions } from "./provider-options.ts";

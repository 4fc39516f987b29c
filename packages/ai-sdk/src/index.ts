export type { AiModule } from "./ai-module.ts";
/** A summarizer on the app's own AI SDK model that reads the conversation from the provider's prompt cache (docs/ai-sdk.md). */
export {
  type AiSdkAgentCall,
  type AiSdkConversationInput,
  type AiSdkConversationOption,
  AiSdkSummarizer,
  type AiSdkSummarizerOptions,
  type AiSdkSummaryResult,
  type AiSdkSummaryUsage,
} from "./ai-sdk-summarizer.ts";
export type { AnthropicCacheControl, AnthropicCacheOption } from "./anthropic-cache.ts";
export {
  Conversation,
  type ConversationCompactOptions,
  type ConversationContext,
  type ConversationStreamOptions,
  type ResponseEvent,
  type UISaveOutcome,
} from "./conversation.ts";
export type { LoadedConversation } from "./load-messages.ts";
export { type OpenConversationOptions, openConversation } from "./open-conversation.ts";
export type { AiSdkMetadata, StoredApprovals } from "./stored-metadata.ts";
export type { UIMessageStreamEnd } from "./ui-messages.ts";
export { TAG_KEY } from "./value-codec.ts";

export type { AiModule } from "./ai-module.ts";
export type { AnthropicCacheControl, AnthropicCacheOption } from "./anthropic-cache.ts";
export {
  Conversation,
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

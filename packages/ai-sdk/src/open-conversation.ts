import { definedFields, OptionValues } from "@palimpsest/core";
import {
  type AdapterSessionOptions,
  COMPACTION_SETTINGS_SHAPE,
  checkAdapterOptions,
  openRuntimeSession,
} from "@palimpsest/runtime";
import { loadAi } from "./ai-module.ts";
import { type AnthropicCacheOption, anthropicCacheControl } from "./anthropic-cache.ts";
import { Conversation } from "./conversation.ts";

/**
 * Options of openConversation (exact: an unknown key is VALIDATION). With `url`, the runtime opened for
 * the conversation runs `compaction` after every saved turn (`auto` defaults to true), and `compact()`
 * and `prepareStep` use it too; a given `runtime` keeps its own settings after a turn.
 */
export interface OpenConversationOptions extends AdapterSessionOptions {
  /**
   * Prompt-cache breakpoints for Anthropic models (`providerOptions.anthropic.cacheControl`): load() marks
   * the last instruction, the view's last summary and the last two messages, and prepareStep keeps the
   * last two marks on each step's last messages; four at most, a stored message's own counted. `true`
   * (5-minute entries) or `{ ttl: "1h" }`. Off by default: breakpoints of your own on tools or
   * instructions you pass are not counted, and Anthropic takes four per request. See docs/ai-sdk.md.
   */
  anthropicCache?: AnthropicCacheOption;
}

/**
 * Opens an AI SDK conversation on a Palimpsest session: continues `sessionId` when it exists, else
 * starts it (or a new session). Needs `ai` (an optional peer dependency) and opens the store at `url`
 * unless given a `runtime`. See docs/ai-sdk.md.
 */
export async function openConversation(options: OpenConversationOptions = {}): Promise<Conversation> {
  checkAdapterOptions("openConversation", options, COMPACTION_SETTINGS_SHAPE, { anthropicCache: OptionValues.any });
  const control = anthropicCacheControl(options.anthropicCache);
  const { url, tenant, keyring, sessionId, model, contextWindow, compaction = {}, runtime: given } = options;
  const ai = await loadAi();
  const { runtime, session, ownsRuntime } = await openRuntimeSession("openConversation", {
    ...definedFields({ url, tenant, keyring, runtime: given, sessionId }),
    compaction: { auto: true, ...compaction },
    start: {
      ...definedFields({ model, contextWindow }),
    },
  });
  return new Conversation({ ai, runtime, session, compaction, ownsRuntime, anthropicCache: control });
}

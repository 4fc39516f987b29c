import { definedFields } from "@palimpsest/core";
import { type AdapterSessionOptions, checkAdapterOptions, openRuntimeSession } from "@palimpsest/runtime";
import { loadAi } from "./ai-module.ts";
import { Conversation } from "./conversation.ts";

/**
 * Options of openConversation (exact: an unknown key is VALIDATION). With `url`, the runtime opened for
 * the conversation runs `compaction` after every saved turn (`auto` defaults to true), and `compact()`
 * and `prepareStep` use it too; a given `runtime` keeps its own settings after a turn.
 */
export type OpenConversationOptions = AdapterSessionOptions;

/**
 * Opens an AI SDK conversation on a Palimpsest session: continues `sessionId` when it exists, else
 * starts it (or a new session). Needs `ai` (an optional peer dependency) and opens the store at `url`
 * unless given a `runtime`. See docs/ai-sdk.md.
 */
export async function openConversation(options: OpenConversationOptions = {}): Promise<Conversation> {
  checkAdapterOptions("openConversation", options);
  const { url, tenant, keyring, sessionId, model, contextWindow, compaction = {}, runtime: given } = options;
  const ai = await loadAi();
  const { runtime, session, ownsRuntime } = await openRuntimeSession("openConversation", {
    ...definedFields({ url, tenant, keyring, runtime: given, sessionId }),
    compaction: { auto: true, ...compaction },
    start: {
      ...definedFields({ model, contextWindow }),
    },
  });
  return new Conversation({ ai, runtime, session, compaction, ownsRuntime });
}

import { checkOptionKeys } from "@palimpsest/core";
import { type CompactionSettings, openRuntimeSession, type Palimpsest } from "@palimpsest/store";
import { loadAi } from "./ai-module.ts";
import { Conversation } from "./conversation.ts";

/** Options of openConversation. Exact: an unknown key is VALIDATION. */
export interface OpenConversationOptions {
  /** `postgres://…`, a SQLite file path, or `:memory:`; default `./.palimpsest/palimpsest.db`. Not with `runtime`. */
  url?: string;
  /** The conversation to continue, or the id to start one under; default (or undefined): a new session. */
  sessionId?: string | undefined;
  /** The model name of a new session (it picks the tokenizer). */
  model?: string;
  /** The context window of a new session, which sets the compaction threshold (with the profile). */
  contextWindow?: number;
  /**
   * How the conversation compacts (policy, profile, summarizer, …). With `url`, the runtime opened for it
   * runs these after every saved turn (`auto` defaults to true); `compact()` and `prepareStep` use them too.
   */
  compaction?: CompactionSettings;
  /** An open runtime to use instead of `url` (its own compaction settings apply after a turn); not closed by close(). */
  runtime?: Palimpsest;
}

const OPTION_KEYS: { [K in keyof Required<OpenConversationOptions>]: true } = {
  url: true,
  sessionId: true,
  model: true,
  contextWindow: true,
  compaction: true,
  runtime: true,
};

/**
 * Opens an AI SDK conversation on a Palimpsest session: continues `sessionId` when it exists, else
 * starts it (or a new session). Needs `ai` (an optional peer dependency) and opens the store at `url`
 * unless given a `runtime`. See docs/ai-sdk.md.
 */
export async function openConversation(options: OpenConversationOptions = {}): Promise<Conversation> {
  checkOptionKeys("openConversation", options, OPTION_KEYS);
  const { url, sessionId, model, contextWindow, compaction = {}, runtime: given } = options;
  const ai = await loadAi();
  const { runtime, session, ownsRuntime } = await openRuntimeSession("openConversation", {
    ...(url === undefined ? {} : { url }),
    ...(given === undefined ? {} : { runtime: given }),
    ...(sessionId === undefined ? {} : { sessionId }),
    compaction: { auto: true, ...compaction },
    start: {
      ...(model === undefined ? {} : { model }),
      ...(contextWindow === undefined ? {} : { contextWindow }),
    },
  });
  return new Conversation({ ai, runtime, session, compaction, ownsRuntime });
}

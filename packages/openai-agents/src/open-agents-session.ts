import { checkOptionKeys, ValidationError } from "@palimpsest/core";
import { type CompactionSettings, openRuntimeSession, type Palimpsest } from "@palimpsest/store";
import { type AgentsSdk, PalimpsestAgentsSession } from "./palimpsest-agents-session.ts";

/**
 * How `runCompaction` compacts: the runtime's compaction settings (policy, profile, summarizer, window,
 * anti-thrash, trimming on append, micro-compaction), without `auto`: the Runner's hook is the trigger.
 */
export type AgentsCompactionSettings = Omit<CompactionSettings, "auto">;

/** Options of openAgentsSession. Exact: an unknown key is VALIDATION. */
export interface OpenAgentsSessionOptions {
  /** `postgres://…`, a SQLite file path, or `:memory:`; default `./.palimpsest/palimpsest.db`. Not with `runtime`. */
  url?: string;
  /** A session id or name (its source's id) to continue; a new session (with this id, when given) otherwise. */
  sessionId?: string;
  /** The model a new session is started with (it picks the tokenizer). */
  model?: string;
  /** The model's context window: a new session's, and the window compaction keeps the view within. */
  contextWindow?: number;
  /** How the session compacts (default: the `openai` profile's policy with the offline summarizer). */
  compaction?: AgentsCompactionSettings;
  /** A runtime to share (several sessions, one store); closing the session leaves it open. */
  runtime?: Palimpsest;
}

const OPTION_KEYS: { [K in keyof Required<OpenAgentsSessionOptions>]: true } = {
  url: true,
  sessionId: true,
  model: true,
  contextWindow: true,
  compaction: true,
  runtime: true,
};

/**
 * Opens an OpenAI Agents SDK session on Palimpsest: `run(agent, input, { session: await
 * openAgentsSession({ url }) })`. Continues the session `sessionId` names (by id or name), or starts
 * one. Needs `@openai/agents-core` (an optional peer dependency): VALIDATION naming the install command
 * without it.
 */
export async function openAgentsSession(options: OpenAgentsSessionOptions = {}): Promise<PalimpsestAgentsSession> {
  checkOptionKeys("openAgentsSession", options, OPTION_KEYS);
  const sdk = await loadSdk();
  const settings: CompactionSettings = {
    ...options.compaction,
    ...(options.contextWindow === undefined || options.compaction?.contextWindow !== undefined
      ? {}
      : { contextWindow: options.contextWindow }),
  };
  const profile = typeof settings.profile === "string" ? settings.profile : (settings.profile?.name ?? "openai");
  const { runtime, session, ownsRuntime } = await openRuntimeSession("openAgentsSession", {
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.runtime === undefined ? {} : { runtime: options.runtime }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    compaction: settings,
    start: {
      profile,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    },
  });
  return new PalimpsestAgentsSession({
    runtime,
    session,
    sdk,
    compaction: settings,
    holders: ownsRuntime ? { open: 1 } : undefined,
  });
}

/** The SDK's runtime values, loaded on first use: it is an optional peer dependency. */
async function loadSdk(): Promise<AgentsSdk> {
  try {
    const sdk = await import("@openai/agents-core");
    return { itemSchema: sdk.protocol.ModelItem, RequestUsage: sdk.RequestUsage };
  } catch (cause) {
    throw new ValidationError(
      "openAgentsSession needs @openai/agents-core: npm install @openai/agents-core",
      ["@openai/agents-core: not installed"],
      { cause, path: "@openai/agents-core" },
    );
  }
}

import { definedFields, loadOptionalPeer } from "@palimpsest/core";
import {
  type AdapterSessionOptions,
  COMPACTION_SETTINGS_SHAPE,
  type CompactionSettings,
  checkAdapterOptions,
  openRuntimeSession,
} from "@palimpsest/runtime";
import { type AgentsSdk, PalimpsestAgentsSession } from "./palimpsest-agents-session.ts";

/**
 * How `runCompaction` compacts: the runtime's compaction settings (policy, profile, summarizer, window,
 * anti-thrash, trimming on append, micro-compaction), without `auto`: the Runner's hook is the trigger.
 */
export type AgentsCompactionSettings = Omit<CompactionSettings, "auto">;

/**
 * Options of openAgentsSession (exact: an unknown key is VALIDATION). A new session takes the `openai`
 * profile unless `compaction.profile` names another; `contextWindow` is also the window compaction keeps
 * the view within.
 */
export type OpenAgentsSessionOptions = AdapterSessionOptions<AgentsCompactionSettings>;

/** The compaction settings' shape without `auto` (the Runner's hook is the trigger). */
const { auto: _auto, ...AGENTS_COMPACTION_SHAPE } = COMPACTION_SETTINGS_SHAPE;

/**
 * Opens an OpenAI Agents SDK session on Palimpsest: `run(agent, input, { session: await
 * openAgentsSession({ url }) })`. Continues the session `sessionId` names (by id or name), or starts
 * one. Needs `@openai/agents-core` (an optional peer dependency): VALIDATION naming the install command
 * without it.
 */
export async function openAgentsSession(options: OpenAgentsSessionOptions = {}): Promise<PalimpsestAgentsSession> {
  checkAdapterOptions("openAgentsSession", options, AGENTS_COMPACTION_SHAPE, {});
  const sdk = await loadSdk();
  const settings: CompactionSettings = {
    ...options.compaction,
    ...(options.contextWindow === undefined || options.compaction?.contextWindow !== undefined
      ? {}
      : { contextWindow: options.contextWindow }),
  };
  const profile = typeof settings.profile === "string" ? settings.profile : (settings.profile?.name ?? "openai");
  const { runtime, session, ownsRuntime } = await openRuntimeSession("openAgentsSession", {
    ...definedFields({
      url: options.url,
      tenant: options.tenant,
      keyring: options.keyring,
      runtime: options.runtime,
      sessionId: options.sessionId,
    }),
    compaction: settings,
    start: {
      profile,
      ...definedFields({ model: options.model, contextWindow: options.contextWindow }),
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
  const sdk = await loadOptionalPeer("openAgentsSession", "@openai/agents-core", () => import("@openai/agents-core"));
  return {
    itemSchema: sdk.protocol.ModelItem,
    RequestUsage: sdk.RequestUsage,
    RunState: sdk.RunState,
    RunContext: sdk.RunContext,
    tool: sdk.tool,
  };
}

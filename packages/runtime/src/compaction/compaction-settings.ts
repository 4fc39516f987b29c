import {
  type AntiThrashConfig,
  type CachePrices,
  type CompactionPolicy,
  type CountTokens,
  chooseProfile,
  definedFields,
  type MicroSettings,
  OfflineSummarizer,
  PROVIDER_PROFILES,
  type ProfileChoice,
  type ProviderProfile,
  type SessionStarted,
  type SessionState,
  type Summarizer,
  ValidationError,
} from "@palimpsest/core";
import { defaultPolicyName, type PolicyName, policyNamed } from "./policies/registry.ts";

export type { PolicyName } from "./policies/registry.ts";

/** How a runtime compacts: every field optional, defaults from the session and its profile. */
export interface CompactionSettings {
  /** Default: the profile's preference (prune-first where the prompt cache makes mutations costly). */
  policy?: PolicyName;
  /**
   * A profile, or the name of a built-in one; default: the session's profile, else the one its model
   * implies (`claude-*` → anthropic, `gpt-*`, `o1`… → openai), else its transcript format's, else anthropic.
   */
  profile?: ProviderProfile | string;
  /** Default: the session's context window, else 200,000. */
  contextWindow?: number;
  /**
   * Tokens reserved for the answer. Default: the profile's, but at most a quarter of the window (a
   * 64K-output default on a 64K window would otherwise leave no room and a threshold of 0).
   */
  maxOutputTokens?: number;
  /** What the summarizer's model costs, for the cost-optimal policy (default: the profile's prices). */
  summarizerPrices?: CachePrices;
  /** Default: the deterministic offline summarizer (no network, no key). */
  summarizer?: Summarizer;
  /** How long a summary may take before it counts as a timeout (default 120 s). */
  summaryTimeoutMs?: number;
  antiThrash?: AntiThrashConfig;
  /** Check the session's policy after every completed turn (default false). */
  auto?: boolean;
  /** Trim tool outputs over the profile's `trimTokens` as they are appended (default false). */
  trimOnAppend?: boolean;
  /**
   * Per-turn micro-compaction (off unless given; `{}` turns it on with its defaults: every turn, defrag
   * over 2,000 tokens, 3 attempts on a failing exchange). A session can opt out with
   * `settings: { microCompact: false }` at its start.
   */
  micro?: Partial<MicroSettings>;
}

/** Settings with every default filled in for one session. */
export interface ResolvedCompaction {
  policy: CompactionPolicy;
  profile: ProviderProfile;
  /** Why the profile is the one it is (given, the session's, its model's, its format's, the default). */
  profileChoice: ProfileChoice;
  contextWindow: number;
  maxOutputTokens: number;
  summarizer: Summarizer;
  summaryTimeoutMs: number;
}

const DEFAULT_CONTEXT_WINDOW = 200_000;

/** Looks a built-in profile up by name (anthropic, openai, local); ValidationError for any other. */
export function profileNamed(name: string): ProviderProfile {
  const profile = PROVIDER_PROFILES[name];
  if (profile === undefined) {
    throw new ValidationError(`unknown profile ${name}`, [
      `profile: one of ${Object.keys(PROVIDER_PROFILES).join(", ")}`,
    ]);
  }
  return profile;
}

/**
 * Which profile a session runs under and why: the settings' own, else the one its start named, else the
 * one its model implies, else its transcript format's, else anthropic (see `chooseProfile`).
 */
export function profileChoiceFor(settings: CompactionSettings, started: SessionStarted | undefined): ProfileChoice {
  const given = settings.profile;
  if (given !== undefined && typeof given !== "string") return { name: given.name, source: "explicit" };
  return chooseProfile({
    explicit: given,
    session: started?.profile,
    model: started?.model,
    format: started?.source?.format,
  });
}

/** The profile of a session, chosen by `profileChoiceFor`. */
export function resolveProfile(settings: CompactionSettings, started: SessionStarted | undefined): ProviderProfile {
  return typeof settings.profile === "object"
    ? settings.profile
    : profileNamed(profileChoiceFor(settings, started).name);
}

/** Fills in the defaults of `settings` for a session, with its token counter for the stubs a prune writes. */
export function resolveCompaction(
  settings: CompactionSettings,
  state: Readonly<SessionState>,
  countTokens: CountTokens,
): ResolvedCompaction {
  const profile = resolveProfile(settings, state.started);
  const weighed = definedFields({ antiThrash: settings.antiThrash, summarizerPrices: settings.summarizerPrices });
  const policy = policyNamed(settings.policy ?? defaultPolicyName(profile));
  const contextWindow = settings.contextWindow ?? state.started?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  return {
    policy: policy.create({ ...weighed, countTokens }),
    profile,
    profileChoice: profileChoiceFor(settings, state.started),
    contextWindow,
    maxOutputTokens:
      settings.maxOutputTokens ?? Math.min(profile.defaultMaxOutputTokens, Math.floor(contextWindow / 4)),
    summarizer: settings.summarizer ?? new OfflineSummarizer(),
    summaryTimeoutMs: settings.summaryTimeoutMs ?? 120_000,
  };
}

import {
  chooseProfile,
  PROVIDER_PROFILES,
  type ProfileChoice,
  type ProviderProfile,
  type SessionStarted,
  type SessionState,
  ValidationError,
} from "@palimpsest/core";
import type { CompactionSettings } from "./compaction-settings.ts";

/** The room a session compacts in: its profile (and why that one), its window and the answer's reserve. */
export interface CompactionBudget {
  profile: ProviderProfile;
  /** Why the profile is the one it is (given, the session's, its model's, its format's, the default). */
  profileChoice: ProfileChoice;
  contextWindow: number;
  maxOutputTokens: number;
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

/**
 * A session's budget with the defaults filled in: the window defaults to the session's, else 200,000; the
 * answer's reserve to the profile's, but at most a quarter of the window.
 */
export function resolveBudget(settings: CompactionSettings, state: Readonly<SessionState>): CompactionBudget {
  const profile = resolveProfile(settings, state.started);
  const contextWindow = settings.contextWindow ?? state.started?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  return {
    profile,
    profileChoice: profileChoiceFor(settings, state.started),
    contextWindow,
    maxOutputTokens:
      settings.maxOutputTokens ?? Math.min(profile.defaultMaxOutputTokens, Math.floor(contextWindow / 4)),
  };
}

import { chooseProfile, type ImportedSession, type ProfileChoice, type ProviderProfile } from "@palimpsest/core";

/**
 * The profile a transcript is replayed or evaluated under, and why: the given one, else the one the
 * agent's model implies (`model`, else the first session's), else the transcript format's provider
 * (claude-code → anthropic, openai and tau-bench → openai), else anthropic.
 */
export function transcriptProfileChoice(
  sessions: readonly ImportedSession[],
  given: { profile?: ProviderProfile | string | undefined; model?: string | undefined },
): ProfileChoice {
  const { profile } = given;
  if (profile !== undefined && typeof profile !== "string") return { name: profile.name, source: "explicit" };
  const first = sessions[0];
  return chooseProfile({ explicit: profile, model: given.model ?? first?.model, format: first?.format });
}

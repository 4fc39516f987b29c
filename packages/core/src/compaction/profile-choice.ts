import { TRANSCRIPT_FORMATS } from "../importers/formats.ts";
import type { TranscriptFormat } from "../importers/transcript-format.ts";
/**
 * Which built-in profile a session runs under and why: given by the caller (`explicit`), named at the
 * session's start (`session`), inferred from its model (`model`) or its transcript's format (`format`),
 * else `default` (anthropic). `from` is what it was inferred from (a model name, a format).
 */
export interface ProfileChoice {
  name: string;
  source: "explicit" | "session" | "model" | "format" | "default";
  from?: string;
}

/** What a profile may be inferred from: the names the caller or session gave, the model, the format. */
export interface ProfileClues {
  explicit?: string | undefined;
  session?: string | undefined;
  model?: string | undefined;
  format?: string | undefined;
}

/** The profile when nothing names or suggests one. */
export const DEFAULT_PROFILE_NAME = "anthropic";

/** Model names by provider, matched against the model's last path segment (`openrouter/openai/gpt-4o` → `gpt-4o`). */
const MODEL_FAMILIES: readonly [RegExp, string][] = [
  [/^claude/i, "anthropic"],
  [/^(gpt-|chatgpt|o\d(\b|-|$)|codex|text-davinci)/i, "openai"],
];
/** LiteLLM-style provider prefixes (`anthropic/…`, `openai/…`: an OpenAI-compatible API). */
const PROVIDER_PREFIXES: readonly [RegExp, string][] = [
  [/^(anthropic|bedrock\/anthropic|vertex_ai\/claude)/i, "anthropic"],
  [/^(openai|azure)\//i, "openai"],
];

/** The built-in profile a model name implies (`claude-*` → anthropic, `gpt-*`, `o1`, `o3`… → openai), or undefined. */
export function profileForModel(model: string): string | undefined {
  const last = model.split("/").at(-1) ?? model;
  return (
    MODEL_FAMILIES.find(([pattern]) => pattern.test(last))?.[1] ??
    PROVIDER_PREFIXES.find(([pattern]) => pattern.test(model))?.[1]
  );
}

/** The profile of a session from its clues, first that holds: explicit, the session's, its model's, its format's, default. */
export function chooseProfile(clues: ProfileClues): ProfileChoice {
  if (clues.explicit !== undefined) return { name: clues.explicit, source: "explicit" };
  if (clues.session !== undefined) return { name: clues.session, source: "session" };
  const byModel = clues.model === undefined ? undefined : profileForModel(clues.model);
  if (byModel !== undefined && clues.model !== undefined) return { name: byModel, source: "model", from: clues.model };
  // The provider whose message format the transcript format is written in (formats that run any model have none).
  const byFormat = clues.format === undefined ? undefined : formatProvider(clues.format);
  if (byFormat !== undefined && clues.format !== undefined)
    return { name: byFormat, source: "format", from: clues.format };
  return { name: DEFAULT_PROFILE_NAME, source: "default" };
}

/** One line for a person: `openai (from model gpt-4o)`, `anthropic (the default: no model or format names a provider)`. */
export function describeProfileChoice(choice: ProfileChoice): string {
  switch (choice.source) {
    case "explicit":
      return `${choice.name} (given)`;
    case "session":
      return `${choice.name} (the session's)`;
    case "model":
      return `${choice.name} (from model ${choice.from})`;
    case "format":
      return `${choice.name} (from the ${choice.from} format)`;
    default:
      return `${choice.name} (the default: no model or format names a provider)`;
  }
}

function formatProvider(format: string): string | undefined {
  const known: readonly TranscriptFormat[] = TRANSCRIPT_FORMATS;
  return known.find((f) => f.name === format)?.provider;
}

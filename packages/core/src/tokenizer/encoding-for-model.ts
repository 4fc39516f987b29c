import type { Encoding } from "../events/event-data.ts";

/** The encoding used when the model is unknown, undefined or not an OpenAI model. */
export const DEFAULT_ENCODING: Encoding = "o200k_base";

// Pre-o200k OpenAI models. Checked after O200K_MODELS, so "gpt-4o"/"gpt-4.1" never reach "gpt-4".
const CL100K_MODELS = /^(?:gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada-002)/;
const O200K_MODELS = /^(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o[134](?:$|-))/;

/**
 * The encoding to count a model's tokens with. OpenAI models get their own encoding. Anthropic
 * (claude*), unknown and undefined models get o200k_base: Anthropic's tokenizer is not public, o200k is
 * the closest exact BPE available, and the session records the encoding so its counts stay consistent.
 */
export function encodingForModel(model?: string): Encoding {
  if (model === undefined) return DEFAULT_ENCODING;
  // Accept provider-qualified names such as "openai/gpt-4o" or "azure/gpt-35-turbo".
  const name = (model.split("/").pop() ?? "").trim().toLowerCase();
  if (O200K_MODELS.test(name)) return "o200k_base";
  if (CL100K_MODELS.test(name)) return "cl100k_base";
  return DEFAULT_ENCODING;
}

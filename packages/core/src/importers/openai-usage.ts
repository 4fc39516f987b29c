import type { z } from "zod";
import type { Usage } from "../events/event-data.ts";
import { countField, recordOf } from "./source-fields.ts";

/** The usage an OpenAI-style chat completion reports (OpenHands and mini-swe-agent keep the response). */
export const OpenAiUsage = recordOf({
  prompt_tokens: countField,
  completion_tokens: countField,
  prompt_tokens_details: recordOf({ cached_tokens: countField }),
});

/** A completion's usage as the session records it (prompt, completion, cache reads); undefined when it reports none. */
export function usageOf(raw: z.output<typeof OpenAiUsage>): Usage | undefined {
  const usage: Usage = {};
  const { prompt_tokens: prompt, completion_tokens: completion } = raw;
  const cached = raw.prompt_tokens_details.cached_tokens;
  if (prompt !== undefined) usage.promptTokens = prompt;
  if (completion !== undefined) usage.completionTokens = completion;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

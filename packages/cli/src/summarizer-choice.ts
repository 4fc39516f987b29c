import { definedFields, OfflineSummarizer, type Summarizer, ValidationError } from "@palimpsest/core";
import type { CliIo } from "./cli-io.ts";

/** The summarizers `--summarizer` names. */
export const SUMMARIZER_NAMES = ["offline", "openai", "anthropic"] as const;

/** Where a provider summarizer is: model and endpoint from flags, else the environment. */
export interface SummarizerFlags {
  summarizer?: string;
  summarizerModel?: string;
  summarizerUrl?: string;
}

/**
 * Builds the chosen summarizer. Keys come from the run's environment only (OPENAI_API_KEY, ANTHROPIC_API_KEY),
 * never from flags, so they stay out of shell history; the SDKs load only when a provider is chosen, and a
 * missing one is a VALIDATION error naming its install command before any work starts.
 */
export async function chooseSummarizer(flags: SummarizerFlags, io: CliIo): Promise<Summarizer> {
  const name = flags.summarizer ?? "offline";
  const env = io.env;
  const model = flags.summarizerModel ?? env.PALIMPSEST_SUMMARIZER_MODEL;
  switch (name) {
    case "offline":
      return new OfflineSummarizer();
    case "openai": {
      const { OpenAICompatibleSummarizer } = await import("@palimpsest/summarizers");
      const baseURL = flags.summarizerUrl ?? env.OPENAI_BASE_URL;
      const apiKey = env.OPENAI_API_KEY;
      const summarizer = new OpenAICompatibleSummarizer({
        model: model ?? "gpt-4.1-mini",
        ...definedFields({ baseURL, apiKey }),
      });
      await summarizer.ready();
      return summarizer;
    }
    case "anthropic": {
      const { AnthropicSummarizer } = await import("@palimpsest/summarizers");
      const baseURL = flags.summarizerUrl ?? env.ANTHROPIC_BASE_URL;
      const apiKey = env.ANTHROPIC_API_KEY;
      const summarizer = new AnthropicSummarizer({
        model: model ?? "claude-3-5-haiku-latest",
        ...definedFields({ baseURL, apiKey }),
      });
      await summarizer.ready();
      return summarizer;
    }
    default:
      throw new ValidationError(`unknown summarizer ${name}`, [`--summarizer: ${SUMMARIZER_NAMES.join(" | ")}`]);
  }
}

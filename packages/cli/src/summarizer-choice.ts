import { OfflineSummarizer, type Summarizer, ValidationError } from "@palimpsest/core";

/** Where a provider summarizer is: model and endpoint from flags, else the environment. */
export interface SummarizerFlags {
  summarizer?: string;
  summarizerModel?: string;
  summarizerUrl?: string;
}

/**
 * Builds the chosen summarizer. Keys come from the environment only (OPENAI_API_KEY, ANTHROPIC_API_KEY),
 * never from flags, so they stay out of shell history; the SDKs load only when a provider is chosen.
 */
export async function chooseSummarizer(flags: SummarizerFlags): Promise<Summarizer> {
  const name = flags.summarizer ?? "offline";
  const env = process.env;
  const model = flags.summarizerModel ?? env.PALIMPSEST_SUMMARIZER_MODEL;
  switch (name) {
    case "offline":
      return new OfflineSummarizer();
    case "openai": {
      const { OpenAICompatibleSummarizer } = await import("@palimpsest/summarizers");
      const baseURL = flags.summarizerUrl ?? env.OPENAI_BASE_URL;
      return new OpenAICompatibleSummarizer({
        model: model ?? "gpt-4.1-mini",
        ...(baseURL === undefined ? {} : { baseURL }),
      });
    }
    case "anthropic": {
      const { AnthropicSummarizer } = await import("@palimpsest/summarizers");
      const baseURL = flags.summarizerUrl ?? env.ANTHROPIC_BASE_URL;
      return new AnthropicSummarizer({
        model: model ?? "claude-3-5-haiku-latest",
        ...(baseURL === undefined ? {} : { baseURL }),
      });
    }
    default:
      throw new ValidationError(`unknown summarizer ${name}`, ["--summarizer: offline | openai | anthropic"]);
  }
}

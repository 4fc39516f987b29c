import Anthropic from "@anthropic-ai/sdk";
import {
  buildSummaryPrompt,
  DEFAULT_SUMMARY_CAPS,
  definedFields,
  SUMMARY_PROMPT_VERSION,
  SUMMARY_SYSTEM_PROMPT,
  type Summarizer,
  SummarizerError,
  type SummaryRequest,
  type SummaryResult,
} from "@palimpsest/core";
import { sdkFailureFacts, toSummarizerError } from "./failure.ts";
import { finishSummary } from "./finish.ts";
import { type ProviderSummarizerOptions, sdkClientOptions } from "./provider-options.ts";

const PROVIDER = "anthropic";

/** Settings of the Anthropic messages summarizer (endpoint: ANTHROPIC_BASE_URL, key: ANTHROPIC_API_KEY by default). */
export type AnthropicOptions = ProviderSummarizerOptions;

/** Summarizer on the official `@anthropic-ai/sdk` messages API: one system prompt, one user turn. */
export class AnthropicSummarizer implements Summarizer {
  readonly model: string;
  readonly promptVersion = SUMMARY_PROMPT_VERSION;
  readonly #client: Anthropic;
  readonly #options: AnthropicOptions;

  constructor(options: AnthropicOptions) {
    this.model = options.model;
    this.#options = options;
    this.#client = new Anthropic({
      ...sdkClientOptions(options),
      ...definedFields({ apiKey: options.apiKey }),
    });
  }

  /** Sends the request; throws SummarizerError with a classified reason on any failure. */
  async summarize(request: SummaryRequest, options?: { signal?: AbortSignal }): Promise<SummaryResult> {
    const { temperature, caps = DEFAULT_SUMMARY_CAPS } = this.#options;
    let message: Anthropic.Message;
    try {
      message = await this.#client.messages.create(
        {
          model: this.model,
          max_tokens: request.maxOutputTokens,
          system: SUMMARY_SYSTEM_PROMPT,
          messages: [{ role: "user", content: buildSummaryPrompt(request, caps) }],
          ...definedFields({ temperature }),
        },
        options?.signal === undefined ? {} : { signal: options.signal },
      );
    } catch (error) {
      throw toSummarizerError(PROVIDER, error, sdkFailureFacts(Anthropic, error), options?.signal);
    }
    const stop = message.stop_reason;
    if (stop === "max_tokens" || stop === "model_context_window_exceeded")
      throw new SummarizerError("truncated", PROVIDER, `stop_reason ${stop}`);
    if (stop === "refusal") throw new SummarizerError("refused", PROVIDER, "stop_reason refusal");
    const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
    const usage = message.usage;
    return finishSummary(PROVIDER, text, request.maxOutputTokens, {
      inputTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
      outputTokens: usage.output_tokens,
    });
  }
}

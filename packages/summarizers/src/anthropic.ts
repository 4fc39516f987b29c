import type Anthropic from "@anthropic-ai/sdk";
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
import { loadProviderSdk } from "./provider-sdk.ts";

const PROVIDER = "anthropic";

/** Settings of the Anthropic messages summarizer (endpoint: ANTHROPIC_BASE_URL, key: ANTHROPIC_API_KEY by default). */
export type AnthropicOptions = ProviderSummarizerOptions;

/**
 * Summarizer on the official `@anthropic-ai/sdk` messages API: one system prompt, one user turn. The SDK is
 * an optional peer dependency (`npm install @anthropic-ai/sdk`), imported on the first `ready()` or `summarize()`.
 */
export class AnthropicSummarizer implements Summarizer {
  readonly model: string;
  readonly promptVersion = SUMMARY_PROMPT_VERSION;
  readonly #options: AnthropicOptions;
  #sdk: Promise<{ Anthropic: typeof Anthropic; client: Anthropic }> | undefined;

  constructor(options: AnthropicOptions) {
    this.model = options.model;
    this.#options = options;
  }

  /** Loads `@anthropic-ai/sdk`; rejects with ValidationError (VALIDATION, "npm install @anthropic-ai/sdk") when it is not installed. */
  async ready(): Promise<void> {
    await this.#client();
  }

  #client(): Promise<{ Anthropic: typeof Anthropic; client: Anthropic }> {
    this.#sdk ??= loadProviderSdk("AnthropicSummarizer", "@anthropic-ai/sdk", () => import("@anthropic-ai/sdk")).then(
      (Anthropic) => ({
        Anthropic,
        client: new Anthropic({
          ...sdkClientOptions(this.#options),
          ...definedFields({ apiKey: this.#options.apiKey }),
        }),
      }),
    );
    return this.#sdk;
  }

  /** Sends the request; throws SummarizerError with a classified reason on any failure (ValidationError without the SDK). */
  async summarize(request: SummaryRequest, options?: { signal?: AbortSignal }): Promise<SummaryResult> {
    const { temperature, caps = DEFAULT_SUMMARY_CAPS } = this.#options;
    const { Anthropic, client } = await this.#client();
    let message: Anthropic.Message;
    try {
      message = await client.messages.create(
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

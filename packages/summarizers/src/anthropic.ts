import type Anthropic from "@anthropic-ai/sdk";
import {
  buildConversationInstruction,
  buildSummaryPrompt,
  DEFAULT_SUMMARY_CAPS,
  definedFields,
  finishSummary,
  SUMMARY_PROMPT_VERSION,
  SUMMARY_SYSTEM_PROMPT,
  type Summarizer,
  SummarizerError,
  type SummaryCaps,
  type SummaryRequest,
  type SummaryResult,
  toolCallRefused,
  toSummarizerError,
} from "@palimpsest/core";
import {
  type AnthropicConversationRequest,
  type ConversationOption,
  conversationInput,
  withInstruction,
} from "./conversation-request.ts";
import { sdkFailureFacts } from "./failure.ts";
import { type ProviderSummarizerOptions, sdkClientOptions } from "./provider-options.ts";
import { loadProviderSdk } from "./provider-sdk.ts";

const PROVIDER = "anthropic";

/** Settings of the Anthropic messages summarizer (endpoint: ANTHROPIC_BASE_URL, key: ANTHROPIC_API_KEY by default). */
export interface AnthropicOptions extends ProviderSummarizerOptions {
  /**
   * Summarize inside the agent's own conversation, read from Anthropic's prompt cache: `request` builds
   * the agent's request from the view's messages (the same builder the agent uses, e.g.
   * `(c) => ({ ...toAnthropicRequest(c.messages, { cache: { summaryId: c.lastSummaryId } }), tools })`),
   * and the summarizer sends it with one instruction appended as the last user turn. The cache is read
   * only when `model` is the agent's model and the request's tools, tool choice, system prompt and
   * messages are byte for byte the agent's. The conversation is sent unredacted, as the agent sends it.
   * Without a conversation (a span that is not one run of the view) the plain request is sent.
   */
  conversation?: ConversationOption<AnthropicConversationRequest>;
}

/**
 * Summarizer on the official `@anthropic-ai/sdk` messages API: one system prompt, one user turn; with the
 * `conversation` option, the agent's own request and a final instruction. The SDK is an optional peer
 * dependency (`npm install @anthropic-ai/sdk`), imported on the first `ready()` or `summarize()`.
 */
export class AnthropicSummarizer implements Summarizer {
  readonly model: string;
  readonly promptVersion = SUMMARY_PROMPT_VERSION;
  /** True with the `conversation` option: the runtime then passes the conversation (SummaryRequest.conversation). */
  readonly readsConversation: boolean;
  readonly #options: AnthropicOptions;
  #sdk: Promise<{ Anthropic: typeof Anthropic; client: Anthropic }> | undefined;

  constructor(options: AnthropicOptions) {
    this.model = options.model;
    this.readsConversation = options.conversation !== undefined;
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
    const prompt = this.#prompt(request, caps); // a failing request builder throws its own error
    let message: Anthropic.Message;
    try {
      message = await client.messages.create(
        {
          ...prompt,
          model: this.model,
          max_tokens: request.maxOutputTokens,
          ...definedFields({ temperature }),
        },
        options?.signal === undefined ? {} : { signal: options.signal },
      );
    } catch (error) {
      throw toSummarizerError(PROVIDER, error, sdkFailureFacts(Anthropic, error), options?.signal);
    }
    const calls = message.content.flatMap((block) => (block.type === "tool_use" ? [block.name] : []));
    if (calls.length > 0) throw toolCallRefused(PROVIDER, calls);
    const stop = message.stop_reason;
    if (stop === "max_tokens" || stop === "model_context_window_exceeded")
      throw new SummarizerError("truncated", PROVIDER, `stop_reason ${stop}`);
    if (stop === "refusal") throw new SummarizerError("refused", PROVIDER, "stop_reason refusal");
    const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
    const usage = message.usage;
    // Anthropic's input_tokens are the uncached ones: the cache's reads and writes come on top of them.
    const cacheRead = usage.cache_read_input_tokens ?? undefined;
    const cacheWrite = usage.cache_creation_input_tokens ?? undefined;
    return finishSummary(PROVIDER, text, request.maxOutputTokens, {
      inputTokens: usage.input_tokens + (cacheWrite ?? 0) + (cacheRead ?? 0),
      outputTokens: usage.output_tokens,
      cachedInputTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
    });
  }

  /**
   * What the request asks: with the `conversation` option and a conversation, the agent's own request
   * (system, tools, tool choice, messages) with the instruction appended; else the summary system prompt
   * and the serialized span as one user turn.
   */
  #prompt(
    request: SummaryRequest,
    caps: SummaryCaps,
  ): Pick<Anthropic.MessageCreateParamsNonStreaming, "system" | "messages" | "tools" | "tool_choice"> {
    const builder = this.#options.conversation;
    const conversation = request.conversation;
    if (builder === undefined || conversation === undefined)
      return {
        system: SUMMARY_SYSTEM_PROMPT,
        messages: [{ role: "user", content: buildSummaryPrompt(request, caps) }],
      };
    const agent = builder.request(conversationInput(conversation));
    const instruction = buildConversationInstruction({ ...request, conversation }, caps);
    const prompt = {
      ...definedFields({ system: agent.system, tools: agent.tools, tool_choice: agent.tool_choice }),
      messages: withInstruction(agent.messages, instruction),
    };
    // The builder's blocks go as they are: the request is the agent's own, whatever SDK types it was built with.
    return prompt as Pick<Anthropic.MessageCreateParamsNonStreaming, "system" | "messages" | "tools" | "tool_choice">;
  }
}

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
import type OpenAI from "openai";
import { type ConversationOption, conversationInput, type OpenAIConversationRequest } from "./conversation-request.ts";
import { sdkFailureFacts } from "./failure.ts";
import { type ProviderSummarizerOptions, sdkClientOptions } from "./provider-options.ts";
import { loadProviderSdk } from "./provider-sdk.ts";

const PROVIDER = "openai-compatible";

/**
 * Settings of an OpenAI-compatible chat-completions summarizer (OpenAI, vLLM, Ollama, LM Studio,
 * gateways): endpoint OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama), key OPENAI_API_KEY,
 * else a placeholder for local servers that need none.
 */
export interface OpenAICompatibleOptions extends ProviderSummarizerOptions {
  /** Which request field carries the output limit: `max_tokens` (default, widest support) or `max_completion_tokens`. */
  tokenLimitField?: "max_tokens" | "max_completion_tokens";
  /**
   * Summarize inside the agent's own conversation, so automatic prefix caching serves it: `request`
   * builds the agent's request from the view's messages (the same builder the agent uses, e.g.
   * `(c) => ({ messages: toOpenAIMessages(c.messages), tools })`), and the summarizer sends it with one
   * more user message, the instruction. The cache is read only when `model` is the agent's model and the
   * messages and tools are the agent's. The conversation is sent unredacted, as the agent sends it.
   * Without a conversation (a span that is not one run of the view) the plain request is sent.
   */
  conversation?: ConversationOption<OpenAIConversationRequest>;
}

/**
 * Summarizer on the official `openai` SDK's chat completions: one system prompt, one user turn; with the
 * `conversation` option, the agent's own messages and tools and one more user turn. `openai` is
 * an optional peer dependency (`npm install openai`), imported on the first `ready()` or `summarize()`.
 */
export class OpenAICompatibleSummarizer implements Summarizer {
  readonly model: string;
  readonly promptVersion = SUMMARY_PROMPT_VERSION;
  /** True with the `conversation` option: the runtime then passes the conversation (SummaryRequest.conversation). */
  readonly readsConversation: boolean;
  readonly #options: OpenAICompatibleOptions;
  #sdk: Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> | undefined;

  constructor(options: OpenAICompatibleOptions) {
    this.model = options.model;
    this.readsConversation = options.conversation !== undefined;
    this.#options = options;
  }

  /** Loads the `openai` SDK; rejects with ValidationError (VALIDATION, "npm install openai") when it is not installed. */
  async ready(): Promise<void> {
    await this.#client();
  }

  #client(): Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> {
    this.#sdk ??= loadProviderSdk("OpenAICompatibleSummarizer", "openai", () => import("openai")).then((OpenAI) => ({
      OpenAI,
      client: new OpenAI({
        apiKey: this.#options.apiKey ?? process.env.OPENAI_API_KEY ?? "no-key",
        ...sdkClientOptions(this.#options),
      }),
    }));
    return this.#sdk;
  }

  /** Sends the request; throws SummarizerError with a classified reason on any failure (ValidationError without the SDK). */
  async summarize(request: SummaryRequest, options?: { signal?: AbortSignal }): Promise<SummaryResult> {
    const { tokenLimitField = "max_tokens", temperature, caps = DEFAULT_SUMMARY_CAPS } = this.#options;
    const { OpenAI, client } = await this.#client();
    const prompt = this.#prompt(request, caps); // a failing request builder throws its own error
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await client.chat.completions.create(
        {
          ...prompt,
          model: this.model,
          [tokenLimitField]: request.maxOutputTokens,
          ...definedFields({ temperature }),
        },
        options?.signal === undefined ? {} : { signal: options.signal },
      );
    } catch (error) {
      throw toSummarizerError(PROVIDER, error, sdkFailureFacts(OpenAI, error), options?.signal);
    }
    const choice = completion.choices[0];
    const calls = (choice?.message.tool_calls ?? []).map((c) => (c.type === "function" ? c.function.name : c.type));
    if (calls.length > 0 || choice?.finish_reason === "tool_calls") throw toolCallRefused(PROVIDER, calls);
    if (choice?.finish_reason === "length") throw new SummarizerError("truncated", PROVIDER, "finish_reason length");
    if (choice?.finish_reason === "content_filter")
      throw new SummarizerError("refused", PROVIDER, "finish_reason content_filter");
    const refusal = choice?.message.refusal;
    if (typeof refusal === "string" && refusal !== "") throw new SummarizerError("refused", PROVIDER, refusal);
    return finishSummary(PROVIDER, choice?.message.content ?? "", request.maxOutputTokens, {
      inputTokens: completion.usage?.prompt_tokens,
      outputTokens: completion.usage?.completion_tokens,
      // Of prompt_tokens: what the provider's prompt cache served (OpenAI reports no cache writes).
      cachedInputTokens: completion.usage?.prompt_tokens_details?.cached_tokens,
    });
  }

  /**
   * What the request asks: with the `conversation` option and a conversation, the agent's own messages,
   * tools and tool choice, then the instruction as one more user message; else the summary system prompt
   * and the serialized span as one user turn.
   */
  #prompt(
    request: SummaryRequest,
    caps: SummaryCaps,
  ): Pick<OpenAI.ChatCompletionCreateParamsNonStreaming, "messages" | "tools" | "tool_choice"> {
    const builder = this.#options.conversation;
    const conversation = request.conversation;
    if (builder === undefined || conversation === undefined)
      return {
        messages: [
          { role: "system", content: SUMMARY_SYSTEM_PROMPT },
          { role: "user", content: buildSummaryPrompt(request, caps) },
        ],
      };
    const agent = builder.request(conversationInput(conversation));
    const instruction = buildConversationInstruction({ ...request, conversation }, caps);
    const prompt = {
      ...definedFields({ tools: agent.tools, tool_choice: agent.tool_choice }),
      messages: [...agent.messages, { role: "user", content: instruction }],
    };
    // The builder's messages go as they are: the request is the agent's own, whatever types it was built with.
    return prompt as Pick<OpenAI.ChatCompletionCreateParamsNonStreaming, "messages" | "tools" | "tool_choice">;
  }
}

import {
  buildConversationInstruction,
  buildSummaryPrompt,
  DEFAULT_SUMMARY_CAPS,
  definedFields,
  type FailureFacts,
  finishSummary,
  loadOptionalPeer,
  type Message,
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
import type {
  generateText,
  Instructions,
  LanguageModel,
  LanguageModelUsage,
  ModelMessage,
  Tool,
  ToolChoice,
  ToolSet,
} from "ai";
import { type AnthropicCacheOption, anthropicCacheControl } from "./anthropic-cache.ts";
import { loadMessages } from "./load-messages.ts";

const PROVIDER = "ai-sdk";

/** What `conversation.request` is given: the view's live messages and its last summary (SummaryConversation's). */
export interface AiSdkConversationInput {
  /** The view's live messages, up to the agent's last request (SummaryConversation.messages). */
  messages: readonly Message[];
  /** The view's last summary, where `anthropicCache` puts a breakpoint (ActiveView.lastSummaryId). */
  lastSummaryId?: string;
}

/**
 * What the app passes to `generateText` / `streamText` for the agent, beside its `model`: the fields that
 * make the prompt the provider caches. The summarizer sends them unchanged.
 */
export interface AiSdkAgentCall {
  /** The system prompt (load()'s `instructions`, or the app's own). */
  instructions?: Instructions;
  /** The conversation as ModelMessages (load()'s `messages`). */
  messages: ModelMessage[];
  /** The agent's tools: sent as the agent sends them, and never executed by the summarizer. */
  tools?: ToolSet;
  /** The agent's tool choice: sent unchanged (another one changes the prompt the provider caches). */
  toolChoice?: ToolChoice<ToolSet>;
  /** The agent's active tools, when it narrows its tools. */
  activeTools?: string[];
  /** The agent's call-level provider options (Anthropic thinking, OpenAI prompt cache key, …). */
  providerOptions?: ModelMessage["providerOptions"];
}

/**
 * AiSdkSummarizer's `conversation`: how to rebuild the agent's last call from the view's messages. By
 * default it is what `conversation.load()` returns (loadMessages, with `anthropicCache`'s breakpoints) and
 * the `tools`, `toolChoice`, `activeTools` and `providerOptions` given here; `request` replaces that.
 */
export interface AiSdkConversationOption {
  /** The conversation's `anthropicCache` (openConversation's): the breakpoints load() places. */
  anthropicCache?: AnthropicCacheOption;
  /** The tools the agent passes to generateText / streamText (definitions only are sent; none is executed). */
  tools?: ToolSet;
  /** The agent's `toolChoice`, when it sets one. */
  toolChoice?: ToolChoice<ToolSet>;
  /** The agent's `activeTools`, when it sets them. */
  activeTools?: string[];
  /** The agent's call-level `providerOptions`, when it sets them. */
  providerOptions?: ModelMessage["providerOptions"];
  /**
   * Builds the agent's call from the conversation, for an app that does not send load()'s view as it is
   * (instructions of its own, messages added or rewritten): the function the agent's own calls come from.
   */
  request?: (conversation: AiSdkConversationInput) => AiSdkAgentCall;
}

/** Settings of AiSdkSummarizer. */
export interface AiSdkSummarizerOptions {
  /** The app's model: the same LanguageModel (object or id) the agent calls, so the provider's cache is shared. */
  model: LanguageModel;
  /**
   * Summarize inside the agent's own conversation, read from the provider's prompt cache: the agent's
   * last call, sent unchanged, with the summary instruction as one more user message. Without it, or
   * without a conversation (a span that is not one run of the view), a plain summary request is sent.
   */
  conversation?: AiSdkConversationOption;
  /** Retries the AI SDK makes on retryable provider errors (its default: 2). */
  maxRetries?: number;
  /** The sampling temperature of the summary call (the provider's default when absent). */
  temperature?: number;
  /** How much of each message the plain request serializes (SummaryCaps): core's defaults when absent. */
  caps?: SummaryCaps;
  /** Hears every answered request's usage as the AI SDK reports it (cache reads and writes included). */
  onUsage?: (usage: AiSdkSummaryUsage) => void;
}

/** What a summary cost, from the AI SDK's usage. */
export interface AiSdkSummaryUsage {
  /** Every input token, the cached ones included (the AI SDK's `inputTokens`). */
  inputTokens?: number;
  /** Input tokens read from the provider's prompt cache (`inputTokenDetails.cacheReadTokens`). */
  cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache (`inputTokenDetails.cacheWriteTokens`). */
  cacheWriteTokens?: number;
  outputTokens?: number;
}

/** A summary and what it cost, the cache's share of the input included. */
export interface AiSdkSummaryResult extends SummaryResult {
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens?: number;
}

/** What the summarizer uses of `ai` at run time. */
type AiCalls = Pick<typeof import("ai"), "generateText" | "APICallError" | "RetryError">;

/** The options of one generateText call, as the summarizer builds them. */
type SummaryCall = Parameters<typeof generateText>[0];

/**
 * A summarizer for AI SDK apps, on the app's own `LanguageModel` (any provider the AI SDK has). With the
 * `conversation` option it reads the conversation the way the agent sends it (load()'s view, its
 * Anthropic breakpoints, the agent's tools), so the provider serves all but the instruction from its
 * prompt cache. `ai` is an optional peer dependency, imported on the first `ready()` or `summarize()`.
 * See docs/ai-sdk.md, "A summarizer that reads the conversation".
 */
export class AiSdkSummarizer implements Summarizer {
  /** The model's id (a model object's `modelId`). */
  readonly model: string;
  /** The version of the summary prompt it sends, recorded with each compaction (the other summarizers' too). */
  readonly promptVersion = SUMMARY_PROMPT_VERSION;
  /** True with the `conversation` option: the runtime then passes the conversation (SummaryRequest.conversation). */
  readonly readsConversation: boolean;
  readonly #options: AiSdkSummarizerOptions;
  /** The conversation option's builder: the one given, else load()'s view and the agent's other fields. */
  readonly #request: ((conversation: AiSdkConversationInput) => AiSdkAgentCall) | undefined;
  #ai: Promise<AiCalls> | undefined;

  constructor(options: AiSdkSummarizerOptions) {
    const { model, conversation } = options;
    this.model = typeof model === "string" ? model : model.modelId;
    this.readsConversation = conversation !== undefined;
    this.#options = options;
    this.#request = conversation === undefined ? undefined : (conversation.request ?? loadedCall(conversation));
  }

  /** Loads `ai`; rejects with ValidationError (VALIDATION, "npm install ai") when it is not installed. */
  async ready(): Promise<void> {
    await this.#loadAi();
  }

  #loadAi(): Promise<AiCalls> {
    this.#ai ??= loadOptionalPeer("AiSdkSummarizer", "ai", () => import("ai")).then(
      ({ generateText, APICallError, RetryError }) => ({ generateText, APICallError, RetryError }),
    );
    return this.#ai;
  }

  /** Sends the request; throws SummarizerError with a classified reason on any failure (ValidationError without `ai`). */
  async summarize(request: SummaryRequest, options?: { signal?: AbortSignal }): Promise<AiSdkSummaryResult> {
    const { model, maxRetries, temperature, caps = DEFAULT_SUMMARY_CAPS, onUsage } = this.#options;
    const ai = await this.#loadAi();
    const prompt = this.#prompt(request, caps); // a failing request builder throws its own error
    let result: Awaited<ReturnType<typeof generateText>>;
    try {
      result = await ai.generateText({
        ...prompt,
        model,
        maxOutputTokens: request.maxOutputTokens,
        ...definedFields({ maxRetries, temperature, abortSignal: options?.signal }),
      } as SummaryCall);
    } catch (error) {
      throw toSummarizerError(PROVIDER, error, aiFailureFacts(ai, error), options?.signal);
    }
    const usage = summaryUsage(result.usage);
    onUsage?.(usage);
    const calls = result.content.flatMap((part) => (part.type === "tool-call" ? [part.toolName] : []));
    if (calls.length > 0 || result.finishReason === "tool-calls") throw toolCallRefused(PROVIDER, calls);
    if (result.finishReason === "length") throw new SummarizerError("truncated", PROVIDER, "finish reason length");
    if (result.finishReason === "content-filter")
      throw new SummarizerError("refused", PROVIDER, "finish reason content-filter");
    const summary = finishSummary(PROVIDER, result.text, request.maxOutputTokens, usage);
    const { cachedInputTokens, cacheWriteTokens } = usage;
    return { ...summary, ...definedFields({ cachedInputTokens, cacheWriteTokens }) };
  }

  /**
   * What the request asks: with the `conversation` option and a conversation, the agent's call unchanged
   * (instructions, messages, tools without their `execute`, tool choice, provider options) and the
   * instruction as one more user message; else the summary system prompt and the serialized span.
   */
  #prompt(request: SummaryRequest, caps: SummaryCaps): Omit<SummaryCall, "model"> {
    const conversation = request.conversation;
    if (this.#request === undefined || conversation === undefined)
      return {
        instructions: SUMMARY_SYSTEM_PROMPT,
        messages: [{ role: "user", content: buildSummaryPrompt(request, caps) }],
      };
    const { messages, lastSummaryId } = conversation;
    const agent = this.#request({ messages, ...definedFields({ lastSummaryId }) });
    const instruction = buildConversationInstruction({ ...request, conversation }, caps);
    const { instructions, tools, toolChoice, activeTools, providerOptions } = agent;
    return {
      ...definedFields({ instructions, toolChoice, activeTools, providerOptions }),
      ...(tools === undefined ? {} : { tools: definitionsOnly(tools) }),
      messages: [...agent.messages, { role: "user", content: [{ type: "text", text: instruction }] }],
    };
  }
}

/** The agent's call as load() builds it (loadMessages, with the breakpoints), plus the option's other fields. */
function loadedCall(option: AiSdkConversationOption): (conversation: AiSdkConversationInput) => AiSdkAgentCall {
  const control = anthropicCacheControl(option.anthropicCache);
  const { tools, toolChoice, activeTools, providerOptions } = option;
  return ({ messages, lastSummaryId }) => ({
    ...loadMessages(messages, control === undefined ? undefined : { control, summaryId: lastSummaryId }),
    ...definedFields({ tools, toolChoice, activeTools, providerOptions }),
  });
}

/**
 * The tools as the provider is sent them, and nothing the AI SDK would run: no `execute` (a call the
 * model makes anyway stays a call, which summarize refuses), no approval and no input callbacks. What
 * generateText sends of a tool (type, description, input schema, provider options, strict, examples; a
 * provider tool's id and args) is kept as it is.
 */
function definitionsOnly(tools: ToolSet): ToolSet {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => {
      const { execute, needsApproval, onInputStart, onInputDelta, onInputAvailable, ...definition } = tool as Tool & {
        execute?: unknown;
        needsApproval?: unknown;
        onInputStart?: unknown;
        onInputDelta?: unknown;
        onInputAvailable?: unknown;
      };
      return [name, definition as Tool];
    }),
  );
}

/** The AI SDK's usage as the summarizer reports it. */
function summaryUsage(usage: LanguageModelUsage): AiSdkSummaryUsage {
  const { cacheReadTokens, cacheWriteTokens } = usage.inputTokenDetails ?? {};
  return definedFields({
    inputTokens: usage.inputTokens,
    cachedInputTokens: cacheReadTokens,
    cacheWriteTokens,
    outputTokens: usage.outputTokens,
  });
}

/**
 * What an AI SDK error says: the last attempt's error when the retries ran out (RetryError), an
 * APICallError's status and headers, an abort or timeout.
 */
function aiFailureFacts(ai: AiCalls, error: unknown): FailureFacts {
  const last = ai.RetryError.isInstance(error) ? error.lastError : error;
  if (last instanceof Error && (last.name === "AbortError" || last.name === "TimeoutError")) return { kind: "timeout" };
  if (ai.APICallError.isInstance(last)) {
    const headers = last.responseHeaders === undefined ? undefined : new Headers(last.responseHeaders);
    return { kind: "http", status: last.statusCode, headers };
  }
  return { kind: "unknown" };
}

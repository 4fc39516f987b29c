import type { Message } from "../messages/message.ts";

/** What a summarizer is asked to do: fold `messages` (already serialized, capped and redacted) into a summary. */
export interface SummaryRequest {
  /** The messages to summarize, in order, as the serializer prepared them (no secrets, capped). */
  messages: readonly Message[];
  /** The summary these messages continue: the new summary must update it, not nest it. */
  previousSummary?: string;
  /**
   * Where the previous summary sat among `messages`: the first `previousSummaryAt` messages came before
   * everything it covers (a head message released into the span), the rest after it. Default 0.
   */
  previousSummaryAt?: number;
  /**
   * How many earlier summaries `previousSummary` joins, superseded with `messages` (default 1 when it is
   * given): the Recovery line counts them beside the messages.
   */
  previousSummaries?: number;
  /** Upper bound on the summary's length, in tokens. */
  maxOutputTokens: number;
  /**
   * The conversation the span lies in, as the agent sends it: given only to a summarizer that reads it
   * (Summarizer.readsConversation), and only when the span is one run of the view's messages (its
   * earlier summaries, which `previousSummary` holds, among them). The fields above are filled in all the
   * same, so a summarizer can fall back to them.
   */
  conversation?: SummaryConversation;
}

/**
 * The live prompt a compaction summarizes part of: the view's messages as they are (not serialized, capped
 * or redacted: what the agent already sends its provider), so a summarizer can send the agent's own request
 * and let the provider read it from its prompt cache.
 */
export interface SummaryConversation {
  /** The view's live messages, in order, up to the agent's last request (conversationEnd), the span among them. */
  messages: readonly Message[];
  /** The span: `messages[start]` up to, not including, `messages[end]` (an earlier summary among them). */
  start: number;
  /** Where the span ends: `messages[end]`, when there is one, is the first message after it. */
  end: number;
  /** The view's last summary message, where the agent's requests may put a cache breakpoint. */
  lastSummaryId?: string;
}

/** A summary and what it cost. */
export interface SummaryResult {
  text: string;
  /** Tokens the summarizer read, when the provider reports them: all of them, the cache's share included. */
  inputTokens?: number;
  /** Tokens the summarizer wrote, when the provider reports them. */
  outputTokens?: number;
  /**
   * Of `inputTokens`, those read from the provider's prompt cache (billed at its read price: a tenth of
   * the input price on Anthropic), when the provider reports them.
   */
  cachedInputTokens?: number;
  /** Of `inputTokens`, those written to the provider's prompt cache (billed at its write price), when reported. */
  cacheWriteTokens?: number;
}

/**
 * Writes summaries. Implementations throw SummarizerError with a classified reason (timeout, auth,
 * rate-limited, empty, truncated, refused, malformed, other) and never return an empty or truncated summary.
 */
export interface Summarizer {
  /** The model (or "offline") that writes the summaries: part of every compaction's producer. */
  readonly model: string;
  /** Version of the prompt and format, so a cached summary from another prompt is never reused. */
  readonly promptVersion: string;
  /**
   * Reads the span inside the conversation (SummaryRequest.conversation) as the agent sends it, with the
   * agent's model, so the provider serves the prompt from its cache: the runtime then passes the
   * conversation, and the cost-optimal policy prices the summarizer's reading at the cache's read price.
   */
  readonly readsConversation?: boolean;
  /** Summarizes; honours `signal` (aborting throws SummarizerError "timeout"). */
  summarize(request: SummaryRequest, options?: { signal?: AbortSignal }): Promise<SummaryResult>;
}

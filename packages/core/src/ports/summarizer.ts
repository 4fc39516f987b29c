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
}

/** A summary and what it cost. */
export interface SummaryResult {
  text: string;
  /** Tokens the summarizer read and wrote, when the provider reports them. */
  inputTokens?: number;
  outputTokens?: number;
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
  /** Summarizes; honours `signal` (aborting throws SummarizerError "timeout"). */
  summarize(request: SummaryRequest, options?: { signal?: AbortSignal }): Promise<SummaryResult>;
}

import {
  type CompactionFailed,
  definedFields,
  type LiveEntry,
  redactSecrets,
  type Summarizer,
  SummarizerError,
  type SummaryConversation,
  type SummaryResult,
  serializeForSummary,
} from "@palimpsest/core";

/** One summarizer call over live entries: serialized, redacted, bounded in time. */
export interface SummarizeCall {
  summarizer: Summarizer;
  entries: readonly LiveEntry[];
  previousSummary?: string;
  /** How many of `entries` come before the previous summary (SummaryRequest.previousSummaryAt). */
  previousSummaryAt?: number;
  /** How many earlier summaries `previousSummary` joins (SummaryRequest.previousSummaries). */
  previousSummaries?: number;
  maxOutputTokens: number;
  /** The live conversation the entries lie in, for a summarizer that reads it (SummaryRequest.conversation). */
  conversation?: SummaryConversation;
  timeoutMs: number;
  /** Aborts the call (a cancelled background job). */
  signal?: AbortSignal;
}

/**
 * Runs the call and measures it; the summary text comes back redacted. The entries are serialized and
 * redacted for the request's `messages`; the conversation, when given, goes as it is.
 */
export async function summarizeEntries(call: SummarizeCall): Promise<{ result: SummaryResult; ms: number }> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const request = {
    messages: serializeForSummary(call.entries.map((e) => e.message)),
    maxOutputTokens: call.maxOutputTokens,
    ...(call.previousSummary === undefined ? {} : { previousSummary: redactSecrets(call.previousSummary) }),
    ...definedFields({ previousSummaryAt: call.previousSummaryAt, previousSummaries: call.previousSummaries }),
    ...definedFields({ conversation: call.conversation }),
  };
  const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]);
  const result = await call.summarizer.summarize(request, { signal });
  return { result: { ...result, text: redactSecrets(result.text) }, ms: performance.now() - started };
}

/** A summarizer's configuration as anti-thrash tracks it (model and prompt version, never a key). */
export function summarizerConfigKey(summarizer: Summarizer): string {
  return `${summarizer.model}@${summarizer.promptVersion}`;
}

/** What a compaction-failed event records of a failed summarizer call: its class, never transcript text. */
export type SummaryFailure = Pick<CompactionFailed, "reason" | "configKey" | "retryAfterMs"> & { detail: string };

/** Classifies any error a summarizer call threw (anything that is not a SummarizerError is "other"). */
export function summaryFailure(error: unknown, summarizer: Summarizer): SummaryFailure {
  const failure = error instanceof SummarizerError ? error : undefined;
  return {
    reason: failure?.details.reason ?? "other",
    configKey: summarizerConfigKey(summarizer),
    detail: redactSecrets(error instanceof Error ? error.message : String(error)).slice(0, 500),
    ...(failure?.details.retryAfterMs === undefined ? {} : { retryAfterMs: failure.details.retryAfterMs }),
  };
}

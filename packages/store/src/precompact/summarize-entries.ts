import {
  type LiveEntry,
  redactSecrets,
  type Summarizer,
  type SummaryResult,
  serializeForSummary,
} from "@palimpsest/core";

/** One summarizer call over live entries, as compact() makes it: serialized, redacted, bounded in time. */
export interface SummarizeCall {
  summarizer: Summarizer;
  entries: readonly LiveEntry[];
  previousSummary?: string;
  maxOutputTokens: number;
  timeoutMs: number;
  /** Aborts the call (a cancelled background job). */
  signal?: AbortSignal;
}

/** Runs the call and measures it; the summary text comes back redacted. */
export async function summarizeEntries(call: SummarizeCall): Promise<{ result: SummaryResult; ms: number }> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const request = {
    messages: serializeForSummary(call.entries.map((e) => e.message)),
    maxOutputTokens: call.maxOutputTokens,
    ...(call.previousSummary === undefined ? {} : { previousSummary: redactSecrets(call.previousSummary) }),
  };
  const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]);
  const result = await call.summarizer.summarize(request, { signal });
  return { result: { ...result, text: redactSecrets(result.text) }, ms: performance.now() - started };
}

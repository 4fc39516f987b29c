import { SummarizerError } from "../errors.ts";

/** What a provider SDK's error says, reduced to what classification (toSummarizerError) needs. */
export type FailureFacts =
  | { kind: "timeout" }
  | { kind: "http"; status: number | undefined; headers: Headers | undefined }
  | { kind: "unknown" };

/** Milliseconds the provider asked to wait: `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headers?.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Maps a failed summarizer call to a SummarizerError: timeout/abort (and 408), auth (401/403),
 * rate-limited (429, with the wait the provider asked for), else other. A SummarizerError passes as it is.
 */
export function toSummarizerError(
  provider: string,
  error: unknown,
  facts: FailureFacts,
  signal?: AbortSignal,
): SummarizerError {
  if (error instanceof SummarizerError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (facts.kind === "timeout" || signal?.aborted === true)
    return new SummarizerError("timeout", provider, message, { cause: error });
  if (facts.kind === "http") {
    if (facts.status === 401 || facts.status === 403)
      return new SummarizerError("auth", provider, message, { cause: error });
    if (facts.status === 408) return new SummarizerError("timeout", provider, message, { cause: error });
    if (facts.status === 429) {
      const wait = retryAfterMs(facts.headers);
      return new SummarizerError(
        "rate-limited",
        provider,
        message,
        wait === undefined ? { cause: error } : { cause: error, retryAfterMs: wait },
      );
    }
  }
  return new SummarizerError("other", provider, message, { cause: error });
}

/** A model that called a tool instead of writing the summary: a malformed answer. */
export function toolCallRefused(provider: string, names: readonly string[]): SummarizerError {
  return new SummarizerError(
    "malformed",
    provider,
    `the model called ${names.length === 0 ? "a tool" : names.map((n) => `\`${n}\``).join(", ")} instead of writing the summary`,
  );
}

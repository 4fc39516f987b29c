import { SummarizerError } from "@palimpsest/core";

/** What an SDK error says, reduced to what classification needs. */
export type FailureFacts =
  | { kind: "timeout" }
  | { kind: "http"; status: number | undefined; headers: Headers | undefined }
  | { kind: "unknown" };

// biome-ignore lint/suspicious/noExplicitAny: any constructor: only instanceof is used
type ErrorClass<T = object> = abstract new (...args: any[]) => T;

/** The error classes both provider SDKs (openai, @anthropic-ai/sdk; generated alike) export. */
export interface SdkErrorClasses {
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
  APIError: ErrorClass<{ status: number | undefined; headers: Headers | undefined }>;
}

/** What an SDK error says, read through that SDK's error classes. */
export function sdkFailureFacts(sdk: SdkErrorClasses, error: unknown): FailureFacts {
  if (error instanceof sdk.APIConnectionTimeoutError || error instanceof sdk.APIUserAbortError)
    return { kind: "timeout" };
  if (error instanceof sdk.APIError) return { kind: "http", status: error.status, headers: error.headers };
  return { kind: "unknown" };
}

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

/** Maps a failed call to a SummarizerError: timeout/abort, auth (401/403), rate-limited (429), else other. */
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

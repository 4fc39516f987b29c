import type { FailureFacts } from "@palimpsest/core";

// biome-ignore lint/suspicious/noExplicitAny: any constructor: only instanceof is used
type ErrorClass<T = object> = abstract new (...args: any[]) => T;

/** The error classes both provider SDKs (openai, @anthropic-ai/sdk; generated alike) export. */
export interface SdkErrorClasses {
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
  APIError: ErrorClass<{ status: number | undefined; headers: Headers | undefined }>;
}

/** What an SDK error says, read through that SDK's error classes (for core's toSummarizerError). */
export function sdkFailureFacts(sdk: SdkErrorClasses, error: unknown): FailureFacts {
  if (error instanceof sdk.APIConnectionTimeoutError || error instanceof sdk.APIUserAbortError)
    return { kind: "timeout" };
  if (error instanceof sdk.APIError) return { kind: "http", status: error.status, headers: error.headers };
  return { kind: "unknown" };
}

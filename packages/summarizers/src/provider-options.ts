import type { SummaryCaps } from "@palimpsest/core";
import { definedFields } from "@palimpsest/core";

/** Settings every provider summarizer takes; each adapter documents its own defaults for endpoint and key. */
export interface ProviderSummarizerOptions {
  model: string;
  /** The endpoint; defaults to the SDK's (its environment variable, else the provider's API). */
  baseURL?: string;
  /** Defaults to the provider's API key environment variable. */
  apiKey?: string;
  /** Per-attempt timeout in milliseconds (default 120,000). */
  timeoutMs?: number;
  /** Retries the SDK makes on connection errors, 408/409/429 and 5xx (default 2). */
  maxRetries?: number;
  temperature?: number;
  caps?: SummaryCaps;
}

/** The client settings both SDKs take the same way: per-attempt timeout, retries, and the endpoint when given. */
export function sdkClientOptions(options: ProviderSummarizerOptions): {
  timeout: number;
  maxRetries: number;
  baseURL?: string;
} {
  return {
    timeout: options.timeoutMs ?? 120_000,
    maxRetries: options.maxRetries ?? 2,
    ...definedFields({ baseURL: options.baseURL }),
  };
}

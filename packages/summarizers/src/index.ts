export * from "./anthropic.ts";
export { retryAfterMs } from "./failure.ts";
export * from "./openai.ts";
export type { ProviderSummarizerOptions } from "./provider-options.ts";

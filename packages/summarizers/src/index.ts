export * from "./anthropic.ts";
export { retryAfterMs } from "./failure.ts";
export * from "./openai.ts";

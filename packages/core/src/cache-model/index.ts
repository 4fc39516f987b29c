export * from "./cache-cost.ts";
export * from "./cache-estimate.ts";
export * from "./cache-rules.ts";
export * from "./cacheable-tokens.ts";
export * from "./common-prefix.ts";
export * from "./provider-request.ts";
export * from "./step-cache.ts";

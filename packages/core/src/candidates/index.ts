export * from "./candidate.ts";
export * from "./candidate-freshness.ts";
export * from "./plan-candidate.ts";
export * from "./plan-delta.ts";
export * from "./prefix-hash.ts";
export * from "./stable-prefix.ts";
export * from "./validate-candidate.ts";

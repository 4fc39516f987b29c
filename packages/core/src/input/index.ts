export * from "./bounded-id.ts";
export * from "./describe-issues.ts";
export * from "./id-limits.ts";
export * from "./id-schema.ts";
export * from "./json-depth.ts";
export * from "./option-keys.ts";
export * from "./own-keys.ts";
export * from "./parse-input.ts";

export * from "./describe-issues.ts";
export * from "./id-schema.ts";
export * from "./json-depth.ts";
export * from "./option-keys.ts";
export * from "./parse-input.ts";

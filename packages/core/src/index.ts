export * from "./errors.ts";
export * from "./events/index.ts";
export * from "./format-error.ts";
export * from "./importers/index.ts";
export * from "./invariants/index.ts";
export * from "./messages/index.ts";
export * from "./ports/index.ts";
export * from "./session/index.ts";

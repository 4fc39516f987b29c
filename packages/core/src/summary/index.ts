export * from "./extract.ts";
export * from "./offline.ts";
export * from "./prompt.ts";
export * from "./redact.ts";
export * from "./serialize.ts";

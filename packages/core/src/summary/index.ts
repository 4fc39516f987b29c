export * from "./cut.ts";
export * from "./offline.ts";
export * from "./prompt.ts";
export * from "./redact.ts";
export * from "./serialize.ts";
export * from "./summary-check.ts";
export * from "./summary-format.ts";

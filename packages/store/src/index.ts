export * from "./import/import-sessions.ts";
export * from "./runtime/compact-range.ts";
export * from "./runtime/load-session.ts";
export * from "./runtime/message-input.ts";
export * from "./runtime/open-palimpsest.ts";
export * from "./runtime/palimpsest.ts";
export * from "./runtime/session.ts";
export * from "./runtime/summary-role.ts";

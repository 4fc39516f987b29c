/** Test support for Palimpsest: envelope stamping, message builders and fast-check session generators. */
export * from "./builders.ts";
export * from "./generated-session.ts";
export * from "./plan-command.ts";
export * from "./session-steps.ts";
export * from "./stored-events.ts";

export * from "./commands.ts";
export * from "./decide.ts";
export * from "./decide-sequence.ts";
export * from "./evolve.ts";
export * from "./log-keys.ts";
export * from "./pending-calls.ts";
export * from "./session-state.ts";
export * from "./state-codec.ts";

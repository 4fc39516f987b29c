export * from "./fidelity-accumulator.ts";
export * from "./fidelity-figures.ts";
export * from "./fidelity-kinds.ts";
export * from "./fidelity-tracker.ts";
export * from "./message-items.ts";
export * from "./replacement-text.ts";
export * from "./source-fidelity.ts";

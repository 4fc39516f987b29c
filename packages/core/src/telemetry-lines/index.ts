export * from "./aggregate-telemetry.ts";
export * from "./parse-telemetry.ts";
export * from "./telemetry-from-log.ts";
export * from "./telemetry-line.ts";
export * from "./telemetry-totals.ts";

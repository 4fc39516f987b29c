export * from "./compaction-observation.ts";
export * from "./replay-metrics.ts";
export * from "./replay-metrics-accumulator.ts";
export * from "./usage-comparison.ts";

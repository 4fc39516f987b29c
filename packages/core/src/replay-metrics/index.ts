export type { CompactionObservation } from "./compaction-observation.ts";
export type { ReplayMetrics } from "./replay-metrics.ts";
export { ReplayMetricsAccumulator } from "./replay-metrics-accumulator.ts";
export {
  compareWithUsage,
  estimateFigures,
  type FieldComparison,
  type UsageComparison,
  type UsageFigures,
  usageFigures,
} from "./usage-comparison.ts";

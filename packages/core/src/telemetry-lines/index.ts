export {
  type AggregateTelemetryOptions,
  aggregateTelemetry,
  type DurationStats,
  type PrecompactSummary,
  type TelemetryReport,
  type TelemetrySummary,
} from "./aggregate-telemetry.ts";
export { type ParsedTelemetry, type ParseTelemetryOptions, parseTelemetryLines } from "./parse-telemetry.ts";
export { type TelemetryFromLogOptions, telemetryFromLog } from "./telemetry-from-log.ts";
export {
  type PrecompactMissReason,
  PrecompactMissReasonSchema,
  PrecompactUseSchema,
  type RunningTotals,
  RunningTotalsSchema,
  TELEMETRY_VERSION,
  type TelemetryKind,
  TelemetryKindSchema,
  type TelemetryLine,
  TelemetryLineSchema,
  type TelemetryOutcome,
  TelemetryOutcomeSchema,
  type TelemetryPass,
} from "./telemetry-line.ts";
export { TelemetryTotals } from "./telemetry-totals.ts";

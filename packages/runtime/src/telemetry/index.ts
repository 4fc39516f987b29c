export { sessionThreshold } from "./session-threshold.ts";
export { type PrecompactTelemetry, TelemetryRecorder, type TelemetryRecorderOptions } from "./telemetry-recorder.ts";
export { callbackSink, fileJsonSink, stderrJsonSink, type TelemetrySink } from "./telemetry-sink.ts";

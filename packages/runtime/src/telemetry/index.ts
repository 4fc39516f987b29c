export * from "./session-threshold.ts";
export * from "./telemetry-recorder.ts";
export * from "./telemetry-sink.ts";

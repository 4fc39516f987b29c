/**
 * A runtime whose after-turn passes run and report: automatic summary compaction and micro passes on a
 * 64K window, each pass's telemetry line collected, for tests that check what runs after a turn.
 */
import type { TelemetryLine } from "@palimpsest/core";
import { callbackSink, type Palimpsest, TelemetryRecorder } from "@palimpsest/runtime";
import type { RuntimeBackend } from "./runtime-backends.ts";

/** Opens `backend`'s runtime compacting automatically, its telemetry lines pushed to `lines`. */
export function openReportingRuntime(backend: RuntimeBackend, lines: TelemetryLine[]): Promise<Palimpsest> {
  return backend.open({
    compaction: { auto: true, micro: {}, policy: "summary", profile: "local", contextWindow: 64_000 },
    telemetry: new TelemetryRecorder({ sink: callbackSink((line) => void lines.push(line)) }),
  });
}

import { appendFileSync } from "node:fs";
import type { TelemetryLine } from "@palimpsest/core";

/** Where telemetry lines go; `write` may throw or reject, the recorder contains it. */
export interface TelemetrySink {
  write(line: TelemetryLine): void | Promise<void>;
}

/** Writes each line as one JSON line on stderr: the default sink. */
export function stderrJsonSink(): TelemetrySink {
  return { write: (line) => void process.stderr.write(`${JSON.stringify(line)}\n`) };
}

/** Appends each line as one JSON line to `path`, synchronously, so the line is in the file when the pass returns. */
export function fileJsonSink(path: string): TelemetrySink {
  return { write: (line) => appendFileSync(path, `${JSON.stringify(line)}\n`, "utf8") };
}

/** Hands each line to `fn` (a metrics client, a test, an in-memory list). */
export function callbackSink(fn: (line: TelemetryLine) => void | Promise<void>): TelemetrySink {
  return { write: fn };
}

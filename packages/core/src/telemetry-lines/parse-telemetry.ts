import { ValidationError } from "../errors.ts";
import { describeIssues } from "../events/parse-event.ts";
import { type TelemetryLine, TelemetryLineSchema } from "./telemetry-line.ts";

/** Options of reading a JSON-lines telemetry file: `source` names it in errors; `skipInvalid` counts bad lines. */
export interface ParseTelemetryOptions {
  source?: string;
  skipInvalid?: boolean;
}

/** The valid lines of a telemetry file, and how many malformed lines were skipped. */
export interface ParsedTelemetry {
  lines: TelemetryLine[];
  skipped: number;
}

/**
 * Parses JSON-lines telemetry, validating each line with the strict schema (blank lines ignored). A
 * malformed line is a ValidationError naming its line number, unless `skipInvalid` counts and skips it.
 */
export function parseTelemetryLines(text: string, options: ParseTelemetryOptions = {}): ParsedTelemetry {
  const lines: TelemetryLine[] = [];
  let skipped = 0;
  for (const [index, raw] of text.split("\n").entries()) {
    if (raw.trim() === "") continue;
    const read = readLine(raw);
    if ("line" in read) {
      lines.push(read.line);
      continue;
    }
    if (options.skipInvalid === true) {
      skipped += 1;
      continue;
    }
    const where = `line ${index + 1}${options.source === undefined ? "" : ` of ${options.source}`}`;
    throw new ValidationError(
      `malformed telemetry at ${where}`,
      read.issues.map((i) => `line ${index + 1}: ${i}`),
      options.source === undefined ? {} : { path: options.source },
    );
  }
  return { lines, skipped };
}

function readLine(raw: string): { line: TelemetryLine } | { issues: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { issues: [`not JSON (${error instanceof Error ? error.message : String(error)})`] };
  }
  const parsed = TelemetryLineSchema.safeParse(value);
  return parsed.success ? { line: parsed.data } : { issues: describeIssues(parsed.error) };
}

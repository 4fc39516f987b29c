import { ValidationError, type ValidationIssue } from "../errors.ts";
import { describeIssues } from "../input/describe-issues.ts";
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
    const line = `line ${index + 1}`;
    const where = `${line}${options.source === undefined ? "" : ` of ${options.source}`}`;
    throw new ValidationError(
      `malformed telemetry at ${where}`,
      read.issues.map((i) => ({ ...i, path: i.path === "" ? line : `${line}: ${i.path}` })),
      options.source === undefined ? { cause: read.cause } : { cause: read.cause, path: options.source },
    );
  }
  return { lines, skipped };
}

/** One line parsed, or its issues (each path within the line; "" for the line as a whole) and the error behind them. */
function readLine(raw: string): { line: TelemetryLine } | { issues: ValidationIssue[]; cause: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    const message = `not JSON (${error instanceof Error ? error.message : String(error)})`;
    return { issues: [{ path: "", code: "custom", message }], cause: error };
  }
  const parsed = TelemetryLineSchema.safeParse(value);
  return parsed.success ? { line: parsed.data } : { issues: describeIssues(parsed.error), cause: parsed.error };
}

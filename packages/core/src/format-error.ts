import { isPalimpsestError } from "./errors.ts";

/** A plain, JSON-safe form of any error: what CLIs print and logs keep. */
export interface ErrorReport {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  cause?: ErrorReport;
}

/** Turns any thrown value into an ErrorReport, following the `cause` chain. */
export function reportError(error: unknown, depth = 0): ErrorReport {
  if (isPalimpsestError(error)) {
    const report: ErrorReport = { code: error.code, message: error.message, details: { ...error.details } };
    if (error.cause !== undefined && depth < 5) report.cause = reportError(error.cause, depth + 1);
    return report;
  }
  if (error instanceof Error) {
    const report: ErrorReport = { code: "INTERNAL", message: error.message };
    if (error.cause !== undefined && depth < 5) report.cause = reportError(error.cause, depth + 1);
    return report;
  }
  return { code: "INTERNAL", message: String(error) };
}

/** One readable line per error in the chain (plus its first validation issues), for terminals. */
export function formatError(error: unknown): string {
  const lines: string[] = [];
  for (let r: ErrorReport | undefined = reportError(error); r; r = r.cause) {
    lines.push(`${lines.length === 0 ? "error" : "  caused by"} [${r.code}] ${r.message}`);
    const issues = r.details?.issues;
    if (Array.isArray(issues)) for (const issue of issues.slice(0, 10)) lines.push(`  - ${String(issue)}`);
  }
  return lines.join("\n");
}
